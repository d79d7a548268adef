/**
 * The life of subscriptions' periods and their invoices (docs/contract.md § Payments and billing): a period closes into a draft invoice;
 * a draft is finalized (numbered, its lines rated and frozen) after the grace window or when asked; an open
 * invoice is paid through payments, voided or marked uncollectible. Every move is a conditional UPDATE on
 * the state it was read in, in the caller's transaction (a call's, or the period closer's), and sends its
 * event through the same transaction: a close or a finalization happens once however many processes race.
 */
import type { BillingInvoice, BillingPaymentMethod } from '../../../generated/server/types.js';
import type { HandlerContext } from '../../core/context.js';
import { ApiError } from '../../core/errors.js';
import type { Partition } from '../../store/partition.js';
import { getInvoice, getSubscription, insertInvoice, lockInvoiceNumbers, lockSubscription, moveInvoice, moveSubscription, nextInvoiceNumber } from './store.js';
import type { Db } from '../../store/schema.js';
import type { BillingInvoiceTable, BillingSubscriptionTable, InvoiceStatus } from './tables.js';
import { derivedId, newId } from '../../store/secrets.js';
import { rateLines } from './invoice-lines.js';
import { endOfMinute, period, type Interval } from './periods.js';
import { paymentsOf } from './services.js';
import type { UsageService } from '../usage/service.js';
import { toInvoice, toSubscription } from './wire.js';

type InvoiceEvent = 'billing.invoice.created' | 'billing.invoice.finalized' | 'billing.invoice.paid' | 'billing.invoice.voided' | 'billing.invoice.markedUncollectible';
/** Sends an event in the transaction of the move (a call's `ctx.emit`, or the closer's outbox writes). */
export type Emit<T extends string> = (type: T, data: unknown) => void;

/** An invoice as read now: a draft's lines rated from the usage so far. */
export async function readInvoice(db: Db, p: Partition, usage: UsageService, row: BillingInvoiceTable): Promise<BillingInvoice> {
  if (row.status !== 'draft') return toInvoice(row);
  const subscription = (await getSubscription(db, p, row.subscription_id))!;
  return toInvoice(row, await rateLines(db, p, usage, subscription, { start: row.period_start, end: row.period_end, usageTo: row.period_end }));
}

/**
 * A new draft as its `created` event carries it: rated when it can be. A period closes whatever its usage
 * comes to; one too large to bill is reported when the draft is read or finalized, with no lines here.
 */
async function createdInvoice(db: Db, p: Partition, usage: UsageService, row: BillingInvoiceTable): Promise<BillingInvoice> {
  try {
    return await readInvoice(db, p, usage, row);
  } catch (error) {
    if (error instanceof ApiError && error.code === 'amount_too_large') return toInvoice(row);
    throw error;
  }
}

/**
 * Closes the current period of `subscription` (as read): makes its draft invoice and moves the subscription
 * to its next period, or ends it (canceled at period end, or `cancelNow`: the period then ends with the
 * current minute). Undefined when another transaction closed or canceled it first.
 */
export async function closePeriod(
  db: Db,
  p: Partition,
  usage: UsageService,
  subscription: BillingSubscriptionTable,
  emit: Emit<'billing.invoice.created' | 'billing.subscription.canceled' | 'billing.subscription.updated'>,
  options: { cancelNow?: boolean; now?: number } = {},
): Promise<BillingSubscriptionTable | undefined> {
  const now = options.now ?? Date.now();
  const start = subscription.current_period_start;
  const end = options.cancelNow ? new Date(Math.min(endOfMinute(now), Date.parse(subscription.current_period_end))).toISOString() : subscription.current_period_end;
  const invoice: BillingInvoiceTable = {
    mode: p.mode,
    entity_id: p.entityId,
    id: newId('in'),
    number: null,
    subscription_id: subscription.id,
    customer_id: subscription.customer_id,
    currency: subscription.currency,
    status: 'draft',
    period_start: start,
    period_end: end,
    lines: null,
    total: 0,
    amount_paid: 0,
    payment_intent_id: null,
    attempt_count: 0,
    created_at: new Date(now).toISOString(),
    finalized_at: null,
    paid_at: null,
    voided_at: null,
    uncollectible_at: null,
  };
  const ends = options.cancelNow === true || Boolean(Number(subscription.cancel_at_period_end));
  const closed = Number(subscription.periods_closed);
  const next = period(subscription.start_date, subscription.interval as Interval, Number(subscription.interval_count), closed + 1);
  const changes: Partial<BillingSubscriptionTable> = ends
    ? { status: 'canceled', canceled_at: options.cancelNow ? new Date(now).toISOString() : end, current_period_end: end, latest_invoice_id: invoice.id }
    : { periods_closed: closed + 1, current_period_start: next.start, current_period_end: next.end, latest_invoice_id: invoice.id };
  if (!(await moveSubscription(db, p, subscription, changes))) return undefined;
  await insertInvoice(db, invoice);
  emit('billing.invoice.created', await createdInvoice(db, p, usage, invoice));
  const moved = (await getSubscription(db, p, subscription.id))!;
  emit(ends ? 'billing.subscription.canceled' : 'billing.subscription.updated', toSubscription(moved));
  return moved;
}

/**
 * Finalizes a draft: numbers it, rates and freezes its lines; a total of zero is paid at once. Undefined when
 * it is no longer a draft (another transaction finalized it first).
 */
export async function finalizeInvoice(
  db: Db,
  p: Partition,
  usage: UsageService,
  row: BillingInvoiceTable,
  emit: Emit<'billing.invoice.finalized' | 'billing.invoice.paid'>,
  now = Date.now(),
): Promise<BillingInvoice | undefined> {
  const at = new Date(now).toISOString();
  // Locks in one order (the partition's number counter, then the subscription), whatever else the
  // transaction finalizes, so that finalizations never deadlock. The subscription's lock makes two drafts of
  // it finalize one after the other: the second sees what the first billed, late usage included.
  await lockInvoiceNumbers(db, p);
  await lockSubscription(db, p, row.subscription_id);
  const subscription = (await getSubscription(db, p, row.subscription_id))!;
  // Rated before this invoice counts as finalized: late usage is reckoned from the finalization before it.
  const { lines, total } = await rateLines(db, p, usage, subscription, { start: row.period_start, end: row.period_end, usageTo: row.period_end });
  const paid = total === 0 ? { paid_at: at } : {};
  if (!(await moveInvoice(db, p, row.id, ['draft'], { status: total === 0 ? 'paid' : 'open', finalized_at: at, lines: JSON.stringify(lines), total, ...paid }))) {
    return undefined;
  }
  const number = `INV-${String(await nextInvoiceNumber(db, p)).padStart(6, '0')}`;
  await moveInvoice(db, p, row.id, [total === 0 ? 'paid' : 'open'], { number });
  const invoice = toInvoice((await getInvoice(db, p, row.id))!);
  emit('billing.invoice.finalized', invoice);
  if (total === 0) emit('billing.invoice.paid', invoice);
  return invoice;
}

const MOVES = {
  void: { from: ['open', 'uncollectible'], to: 'void', stamp: 'voided_at', event: 'billing.invoice.voided', verb: 'voided' },
  uncollectible: { from: ['open'], to: 'uncollectible', stamp: 'uncollectible_at', event: 'billing.invoice.markedUncollectible', verb: 'marked uncollectible' },
} as const;

function stateError(row: BillingInvoiceTable, verb: string): ApiError {
  return new ApiError('invoice_state_invalid', `Invoice ${row.id} is ${row.status}; it cannot be ${verb}.`, { details: { status: row.status } });
}

export async function loadInvoice(db: Db, p: Partition, id: string, param = '/payload/id'): Promise<BillingInvoiceTable> {
  const row = await getInvoice(db, p, id);
  if (!row) throw new ApiError('resource_not_found', `No invoice ${id}.`, { param });
  return row;
}

/** Voids an open or uncollectible invoice, or marks an open one uncollectible. */
export async function settleInvoice(db: Db, p: Partition, id: string, move: keyof typeof MOVES, emit: Emit<InvoiceEvent>): Promise<BillingInvoice> {
  const { from, to, stamp, event, verb } = MOVES[move];
  const row = await loadInvoice(db, p, id);
  const states: readonly InvoiceStatus[] = from;
  if (!states.includes(row.status) || !(await moveInvoice(db, p, id, [row.status], { status: to, [stamp]: new Date().toISOString() }))) {
    throw stateError((await getInvoice(db, p, id)) ?? row, verb);
  }
  const invoice = toInvoice((await getInvoice(db, p, id))!);
  emit(event, invoice);
  return invoice;
}

/** The most one payment may take (the payments face's `Amount`, Stripe's limit for most currencies). */
const MAX_CHARGE = 99_999_999;

/**
 * Pays what is due on an open or uncollectible invoice with a payment intent confirmed at once. The
 * attempt is counted with a conditional UPDATE that locks the invoice, so two payments cannot both commit;
 * the intent is named after the invoice and the attempt, so an attempt rolled back after the processor
 * charged (a time-out, a lost answer) asks the processor the same question when it is tried again and gets
 * its first answer, not a second charge. A decline keeps the attempt and the failed intent, and answers 402
 * naming both.
 */
export async function payInvoice(
  ctx: HandlerContext<'billing.invoice.paid' | 'billing.invoice.paymentFailed' | 'payments.intent.succeeded' | 'payments.intent.failed'>,
  id: string,
  paymentMethod: BillingPaymentMethod,
): Promise<BillingInvoice> {
  const p = { mode: ctx.mode, entityId: ctx.entityId };
  const row = await loadInvoice(ctx.db, p, id);
  const attempts = Number(row.attempt_count);
  const due = Number(row.total) - Number(row.amount_paid);
  if (['open', 'uncollectible'].includes(row.status) && due > MAX_CHARGE) {
    throw new ApiError('amount_too_large', `Invoice ${row.id} asks for ${due}; one payment takes at most ${MAX_CHARGE} minor units.`, { details: { amountDue: due } });
  }
  if (!['open', 'uncollectible'].includes(row.status) || !(await moveInvoice(ctx.db, p, id, [row.status], { attempt_count: attempts + 1 }, attempts))) {
    throw stateError((await getInvoice(ctx.db, p, id)) ?? row, 'paid');
  }
  const intentId = derivedId('pi', Date.parse(row.finalized_at!) + attempts, `${ctx.mode}\u0000${ctx.entityId}\u0000${row.id}\u0000${attempts}`);
  try {
    await paymentsOf(ctx).charge(ctx, { intentId, amount: due, currency: row.currency, customer: row.customer_id, paymentMethod, description: `Invoice ${row.number}`, metadata: { invoice: row.id } });
  } catch (error) {
    if (error instanceof ApiError && error.keepEffects) {
      ctx.emit('billing.invoice.paymentFailed', toInvoice((await getInvoice(ctx.db, p, id))!));
      throw new ApiError(error.code, error.message, { param: error.param, details: { ...error.details, invoice: row.id }, keepEffects: true });
    }
    throw error;
  }
  await moveInvoice(ctx.db, p, id, ['open', 'uncollectible'], { status: 'paid', amount_paid: Number(row.total), paid_at: new Date().toISOString(), payment_intent_id: intentId });
  const invoice = toInvoice((await getInvoice(ctx.db, p, id))!);
  ctx.emit('billing.invoice.paid', invoice);
  return invoice;
}
