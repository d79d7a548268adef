/**
 * Prices, subscriptions and invoices of the `billing` face, within one (mode, entity) partition, plus the
 * two reads of the period closer that span every partition (what is due). Subscriptions and invoices change
 * only through conditional UPDATEs on the state they are read in, which lock the row until the transaction
 * commits: two closers (or a closer and a call) can never both close one period or finalize one invoice.
 */
import type { Partition } from '../../store/partition.js';
import type { Db } from '../../store/schema.js';
import type { BillingInvoiceTable, BillingPriceTable, BillingSubscriptionTable, InvoiceStatus, SubscriptionStatus } from './tables.js';

const inPartition = (p: Partition) => ({ mode: p.mode, entity_id: p.entityId });

export async function insertPrice(db: Db, row: BillingPriceTable): Promise<void> {
  await db.insertInto('billing_prices').values(row).execute();
}

export async function getPrices(db: Db, p: Partition, ids: readonly string[]): Promise<BillingPriceTable[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('billing_prices').selectAll().where('mode', '=', p.mode).where('entity_id', '=', p.entityId).where('id', 'in', ids).execute();
}

/** Newest first (ids sort by creation), one more than `limit` to tell whether a page follows. */
export async function listPrices(db: Db, p: Partition, limit: number, startingAfter?: string): Promise<BillingPriceTable[]> {
  let query = db.selectFrom('billing_prices').selectAll().where('mode', '=', p.mode).where('entity_id', '=', p.entityId);
  if (startingAfter) query = query.where('id', '<', startingAfter);
  return query.orderBy('id', 'desc').limit(limit + 1).execute();
}

export async function insertSubscription(db: Db, row: BillingSubscriptionTable): Promise<void> {
  await db.insertInto('billing_subscriptions').values(row).execute();
}

export async function getSubscription(db: Db, p: Partition, id: string): Promise<BillingSubscriptionTable | undefined> {
  return db.selectFrom('billing_subscriptions').selectAll().where('mode', '=', p.mode).where('entity_id', '=', p.entityId).where('id', '=', id).executeTakeFirst();
}

export async function listSubscriptions(
  db: Db,
  p: Partition,
  limit: number,
  filter: { customer?: string; status?: SubscriptionStatus; startingAfter?: string },
): Promise<BillingSubscriptionTable[]> {
  let query = db.selectFrom('billing_subscriptions').selectAll().where('mode', '=', p.mode).where('entity_id', '=', p.entityId);
  if (filter.customer) query = query.where('customer_id', '=', filter.customer);
  if (filter.status) query = query.where('status', '=', filter.status);
  if (filter.startingAfter) query = query.where('id', '<', filter.startingAfter);
  return query.orderBy('id', 'desc').limit(limit + 1).execute();
}

/**
 * Changes a subscription still as `read` (active, with as many periods closed, ending or not at the end of
 * its period); false when another transaction changed it first. The row stays locked until the transaction
 * commits.
 */
export async function moveSubscription(db: Db, p: Partition, read: BillingSubscriptionTable, changes: Partial<BillingSubscriptionTable>): Promise<boolean> {
  const result = await db
    .updateTable('billing_subscriptions')
    .set(changes)
    .where('mode', '=', p.mode)
    .where('entity_id', '=', p.entityId)
    .where('id', '=', read.id)
    .where('status', '=', 'active')
    .where('periods_closed', '=', Number(read.periods_closed))
    .where('cancel_at_period_end', '=', Number(read.cancel_at_period_end))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Locks a subscription's row until the transaction commits (a write that changes nothing), so that two
 * finalizations of its invoices run one after the other and the second sees what the first billed.
 */
export async function lockSubscription(db: Db, p: Partition, id: string): Promise<void> {
  await db
    .updateTable('billing_subscriptions')
    .set((eb) => ({ periods_closed: eb.ref('periods_closed') }))
    .where('mode', '=', p.mode)
    .where('entity_id', '=', p.entityId)
    .where('id', '=', id)
    .execute();
}

/** Sets an active subscription to end with its current period; false when it is not active. */
export async function cancelAtPeriodEnd(db: Db, p: Partition, id: string): Promise<boolean> {
  const result = await db
    .updateTable('billing_subscriptions')
    .set({ cancel_at_period_end: 1 })
    .where('mode', '=', p.mode)
    .where('entity_id', '=', p.entityId)
    .where('id', '=', id)
    .where('status', '=', 'active')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Active subscriptions whose current period ended by `now`, across every partition, in the order of their ids from `after`. */
export async function dueSubscriptions(db: Db, now: string, limit: number, after = ''): Promise<BillingSubscriptionTable[]> {
  return db
    .selectFrom('billing_subscriptions')
    .selectAll()
    .where('status', '=', 'active')
    .where('current_period_end', '<=', now)
    .where('id', '>', after)
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** Inserts a period's invoice (a unique key refuses a second one for the same period). */
export async function insertInvoice(db: Db, row: BillingInvoiceTable): Promise<void> {
  await db.insertInto('billing_invoices').values(row).execute();
}

export async function getInvoice(db: Db, p: Partition, id: string): Promise<BillingInvoiceTable | undefined> {
  return db.selectFrom('billing_invoices').selectAll().where('mode', '=', p.mode).where('entity_id', '=', p.entityId).where('id', '=', id).executeTakeFirst();
}

export async function listInvoices(
  db: Db,
  p: Partition,
  limit: number,
  filter: { subscription?: string; status?: InvoiceStatus; startingAfter?: string },
): Promise<BillingInvoiceTable[]> {
  let query = db.selectFrom('billing_invoices').selectAll().where('mode', '=', p.mode).where('entity_id', '=', p.entityId);
  if (filter.subscription) query = query.where('subscription_id', '=', filter.subscription);
  if (filter.status) query = query.where('status', '=', filter.status);
  if (filter.startingAfter) query = query.where('id', '<', filter.startingAfter);
  return query.orderBy('id', 'desc').limit(limit + 1).execute();
}

/**
 * Moves an invoice from one of `from` (with `attemptCount` payment attempts, when given) to `changes`; false
 * when it is in none of them. The row stays locked until the transaction commits.
 */
export async function moveInvoice(
  db: Db,
  p: Partition,
  id: string,
  from: readonly InvoiceStatus[],
  changes: Partial<BillingInvoiceTable>,
  attemptCount?: number,
): Promise<boolean> {
  let query = db.updateTable('billing_invoices').set(changes).where('mode', '=', p.mode).where('entity_id', '=', p.entityId).where('id', '=', id).where('status', 'in', from);
  if (attemptCount !== undefined) query = query.where('attempt_count', '=', attemptCount);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Drafts whose period ended by `cutoff` (its end plus the grace window is past), across every partition, in
 * the order of their ids from `after`: a pass pages through them all, past any that cannot be finalized.
 */
export async function dueDrafts(db: Db, cutoff: string, limit: number, after = ''): Promise<BillingInvoiceTable[]> {
  return db.selectFrom('billing_invoices').selectAll().where('status', '=', 'draft').where('period_end', '<=', cutoff).where('id', '>', after).orderBy('id').limit(limit).execute();
}

/** When an invoice of the subscription was last finalized; undefined before the first. */
export async function lastFinalizedAt(db: Db, p: Partition, subscriptionId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('billing_invoices')
    .select((eb) => eb.fn.max('finalized_at').as('at'))
    .where('mode', '=', p.mode)
    .where('entity_id', '=', p.entityId)
    .where('subscription_id', '=', subscriptionId)
    .executeTakeFirst();
  return row?.at ?? undefined;
}

/** The invoices of a subscription past draft (void included) whose period ended after `since`. */
export async function finalizedInvoicesSince(db: Db, p: Partition, subscriptionId: string, since: string): Promise<BillingInvoiceTable[]> {
  return db
    .selectFrom('billing_invoices')
    .selectAll()
    .where('mode', '=', p.mode)
    .where('entity_id', '=', p.entityId)
    .where('subscription_id', '=', subscriptionId)
    .where('status', '!=', 'draft')
    .where('period_end', '>', since)
    .orderBy('period_start')
    .execute();
}

/**
 * Takes the lock of the partition's invoice-number counter (a write that changes nothing) before anything
 * else a finalization locks, so that finalizations always lock in one order and never deadlock.
 */
export async function lockInvoiceNumbers(db: Db, p: Partition): Promise<void> {
  await db
    .insertInto('billing_invoice_numbers')
    .values({ ...inPartition(p), last: 0 })
    .onConflict((oc) => oc.columns(['mode', 'entity_id']).doUpdateSet((eb) => ({ last: eb.ref('billing_invoice_numbers.last') })))
    .execute();
}

/** The next invoice number of the partition: one counter row, incremented under its lock. */
export async function nextInvoiceNumber(db: Db, p: Partition): Promise<number> {
  const row = await db
    .insertInto('billing_invoice_numbers')
    .values({ ...inPartition(p), last: 1 })
    .onConflict((oc) => oc.columns(['mode', 'entity_id']).doUpdateSet((eb) => ({ last: eb('billing_invoice_numbers.last', '+', 1) })))
    .returning('last')
    .executeTakeFirstOrThrow();
  return Number(row.last);
}
