/**
 * How billing reaches the payments module: through the service it offers (src/faces/payments/service.ts),
 * by its face, never through its tables or its code. Billing bills payments customers, so a server that
 * serves billing serves payments too; one that does not is built wrong, which is a fault, not a caller's error.
 */
import type { PaymentsService } from '../payments/service.js';

export function paymentsOf(ctx: { service<T>(face: string): T | undefined }): PaymentsService {
  const service = ctx.service<PaymentsService>('payments');
  if (!service) throw new Error('The billing face charges through the payments module, which this server does not serve.');
  return service;
}
