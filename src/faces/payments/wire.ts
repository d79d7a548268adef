/**
 * Rows of the payments store in the wire shapes of faces/payments.yaml: camelCase, integer amounts (bigint
 * columns arrive as strings from PostgreSQL), optional fields only when set.
 */
import type { PaymentsCustomer, PaymentsIntent, PaymentsRefund } from '../../../generated/server/types.js';
import type { PaymentCustomerTable, PaymentIntentTable, PaymentRefundTable } from './tables.js';

const metadataOf = (json: string | null) => (json !== null ? { metadata: JSON.parse(json) as Record<string, string> } : {});

export function toCustomer(row: PaymentCustomerTable): PaymentsCustomer {
  return {
    id: row.id,
    ...(row.email !== null ? { email: row.email } : {}),
    ...(row.name !== null ? { name: row.name } : {}),
    ...metadataOf(row.metadata),
    createdAt: row.created_at,
  };
}

export function toIntent(row: PaymentIntentTable): PaymentsIntent {
  return {
    id: row.id,
    amount: Number(row.amount),
    currency: row.currency,
    // A confirmation in flight (`processing`, recorded until the processor answers) reads as not confirmed
    // yet, as it always read to others while a call confirmed it: served versions list no `processing`.
    status: row.status === 'processing' ? 'requires_confirmation' : row.status,
    captureMethod: row.capture_method,
    ...(row.customer_id !== null ? { customer: row.customer_id } : {}),
    ...(row.description !== null ? { description: row.description } : {}),
    ...(row.card_brand !== null && row.card_last4 !== null ? { card: { brand: row.card_brand, last4: row.card_last4 } } : {}),
    amountCapturable: Number(row.amount_capturable),
    amountReceived: Number(row.amount_received),
    amountRefunded: Number(row.amount_refunded),
    ...(row.last_error_code !== null ? { lastPaymentError: { code: row.last_error_code, message: row.last_error_message ?? '' } } : {}),
    ...(row.cancellation_reason !== null ? { cancellationReason: row.cancellation_reason } : {}),
    ...metadataOf(row.metadata),
    createdAt: row.created_at,
  };
}

export function toRefund(row: PaymentRefundTable): PaymentsRefund {
  return {
    id: row.id,
    intent: row.intent_id,
    amount: Number(row.amount),
    currency: row.currency,
    status: 'succeeded',
    ...(row.reason !== null ? { reason: row.reason as NonNullable<PaymentsRefund['reason']> } : {}),
    createdAt: row.created_at,
  };
}
