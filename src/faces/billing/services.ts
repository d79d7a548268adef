/**
 * How billing reaches the modules it needs: payments (src/faces/payments/service.ts), which its invoices are
 * paid through, and usage (src/faces/usage/service.ts), which its metered prices are rated from; through the
 * services they offer, by their face, never through their tables or their code. A server that serves billing
 * serves both; one that does not is built wrong, which is a fault, not a caller's error.
 */
import type { PaymentsService } from '../payments/service.js';
import type { UsageService } from '../usage/service.js';

type Services = { service<T>(face: string): T | undefined };

export function paymentsOf(ctx: Services): PaymentsService {
  const service = ctx.service<PaymentsService>('payments');
  if (!service) throw new Error('The billing face charges through the payments module, which this server does not serve.');
  return service;
}

export function usageOf(ctx: Services): UsageService {
  const service = ctx.service<UsageService>('usage');
  if (!service) throw new Error('The billing face rates metered prices from the usage module, which this server does not serve.');
  return service;
}
