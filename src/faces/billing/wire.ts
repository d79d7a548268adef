/**
 * Rows of the billing store in the wire shapes of faces/billing.yaml. A draft invoice has no lines kept: the
 * caller rates them (invoice-lines.ts) and passes them in; from `open` on the kept lines are the invoice's.
 */
import type { BillingInvoice, BillingInvoiceLine, BillingSubscription } from '../../../generated/server/types.js';
import type { BillingInvoiceTable, BillingSubscriptionTable } from './tables.js';

const when = <K extends string>(key: K, value: string | null) => (value !== null ? ({ [key]: value } as Record<K, string>) : {});

export function toSubscription(row: BillingSubscriptionTable): BillingSubscription {
  return {
    id: row.id,
    customer: row.customer_id,
    prices: JSON.parse(row.price_ids) as string[],
    currency: row.currency,
    interval: row.interval,
    intervalCount: Number(row.interval_count),
    status: row.status,
    cancelAtPeriodEnd: Boolean(Number(row.cancel_at_period_end)),
    currentPeriodStart: row.current_period_start,
    currentPeriodEnd: row.current_period_end,
    startDate: row.start_date,
    ...when('canceledAt', row.canceled_at),
    ...when('latestInvoice', row.latest_invoice_id),
    ...(row.metadata !== null ? { metadata: JSON.parse(row.metadata) as Record<string, string> } : {}),
    createdAt: row.created_at,
  };
}

/** An invoice; `drafted` are a draft's lines and total as rated now. */
export function toInvoice(row: BillingInvoiceTable, drafted?: { lines: BillingInvoiceLine[]; total: number }): BillingInvoice {
  const lines = row.lines !== null ? (JSON.parse(row.lines) as BillingInvoiceLine[]) : (drafted?.lines ?? []);
  const total = row.lines !== null ? Number(row.total) : (drafted?.total ?? 0);
  const paid = Number(row.amount_paid);
  return {
    id: row.id,
    ...when('number', row.number),
    subscription: row.subscription_id,
    customer: row.customer_id,
    status: row.status,
    currency: row.currency,
    periodStart: row.period_start,
    periodEnd: row.period_end,
    lines,
    total,
    // Nothing is due on a void invoice, however much it came to.
    amountDue: row.status === 'void' ? 0 : total - paid,
    amountPaid: paid,
    ...when('paymentIntent', row.payment_intent_id),
    attemptCount: Number(row.attempt_count),
    createdAt: row.created_at,
    ...when('finalizedAt', row.finalized_at),
    ...when('paidAt', row.paid_at),
    ...when('voidedAt', row.voided_at),
    ...when('markedUncollectibleAt', row.uncollectible_at),
  };
}
