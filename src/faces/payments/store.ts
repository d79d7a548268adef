/**
 * Customers, payment intents, refunds and the calls that started them (recoveries) of the `payments` face,
 * within one (mode, entity) partition but for the reconciler's look at what is in flight. An intent changes
 * state only through `moveIntent`, a conditional UPDATE on the states the move starts from: it locks the row
 * until the call commits, so two calls can never both move one intent (two confirmations at once cannot both
 * charge); a refund leaves `processing` the same way, once.
 */
import type { Partition } from '../../store/partition.js';
import type { Db } from '../../store/schema.js';
import type { IntentStatus, PaymentCustomerTable, PaymentIntentTable, PaymentRecoveryTable, PaymentRefundTable, RefundStatus } from './tables.js';

export async function insertCustomer(db: Db, row: PaymentCustomerTable): Promise<void> {
  await db.insertInto('payment_customers').values(row).execute();
}

export async function getCustomer(db: Db, p: Partition, id: string): Promise<PaymentCustomerTable | undefined> {
  return db.selectFrom('payment_customers').selectAll().where('mode', '=', p.mode).where('entity_id', '=', p.entityId).where('id', '=', id).executeTakeFirst();
}

export async function updateCustomer(db: Db, p: Partition, id: string, changes: Partial<Pick<PaymentCustomerTable, 'email' | 'name' | 'metadata'>>): Promise<PaymentCustomerTable | undefined> {
  if (Object.keys(changes).length > 0) {
    await db.updateTable('payment_customers').set(changes).where('mode', '=', p.mode).where('entity_id', '=', p.entityId).where('id', '=', id).execute();
  }
  return getCustomer(db, p, id);
}

/** Newest first (ids sort by creation), one more than `limit` to tell whether a page follows. */
export async function listCustomers(db: Db, p: Partition, limit: number, startingAfter?: string): Promise<PaymentCustomerTable[]> {
  let query = db.selectFrom('payment_customers').selectAll().where('mode', '=', p.mode).where('entity_id', '=', p.entityId);
  if (startingAfter) query = query.where('id', '<', startingAfter);
  return query.orderBy('id', 'desc').limit(limit + 1).execute();
}

export async function insertIntent(db: Db, row: PaymentIntentTable): Promise<void> {
  await db.insertInto('payment_intents').values(row).execute();
}

export async function getIntent(db: Db, p: Partition, id: string): Promise<PaymentIntentTable | undefined> {
  return db.selectFrom('payment_intents').selectAll().where('mode', '=', p.mode).where('entity_id', '=', p.entityId).where('id', '=', id).executeTakeFirst();
}

/**
 * Moves an intent from one of `from` to the state in `changes`; false when it is in none of them (another
 * call moved it first). Run in the call's transaction: the row stays locked until it commits.
 */
export async function moveIntent(db: Db, p: Partition, id: string, from: readonly IntentStatus[], changes: Partial<PaymentIntentTable>): Promise<boolean> {
  const result = await db
    .updateTable('payment_intents')
    .set({ ...changes, updated_at: new Date().toISOString() })
    .where('mode', '=', p.mode)
    .where('entity_id', '=', p.entityId)
    .where('id', '=', id)
    .where('status', 'in', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function listIntents(db: Db, p: Partition, limit: number, filter: { customer?: string; startingAfter?: string }): Promise<PaymentIntentTable[]> {
  let query = db.selectFrom('payment_intents').selectAll().where('mode', '=', p.mode).where('entity_id', '=', p.entityId);
  if (filter.customer) query = query.where('customer_id', '=', filter.customer);
  if (filter.startingAfter) query = query.where('id', '<', filter.startingAfter);
  return query.orderBy('id', 'desc').limit(limit + 1).execute();
}

/** Deletes an intent that a call recorded and the processor refused before acting. */
export async function deleteIntent(db: Db, p: Partition, id: string): Promise<void> {
  await db.deleteFrom('payment_intents').where('mode', '=', p.mode).where('entity_id', '=', p.entityId).where('id', '=', id).execute();
}

/** Adds a refund to its intent's refunded amount. */
export async function addRefunded(db: Db, p: Partition, intentId: string, amount: number): Promise<void> {
  await db
    .updateTable('payment_intents')
    .set((eb) => ({ amount_refunded: eb('amount_refunded', '+', amount), updated_at: new Date().toISOString() }))
    .where('mode', '=', p.mode)
    .where('entity_id', '=', p.entityId)
    .where('id', '=', intentId)
    .execute();
}

export async function insertRefund(db: Db, row: PaymentRefundTable): Promise<void> {
  await db.insertInto('payment_refunds').values(row).execute();
}

export async function getRefund(db: Db, p: Partition, id: string): Promise<PaymentRefundTable | undefined> {
  return db.selectFrom('payment_refunds').selectAll().where('mode', '=', p.mode).where('entity_id', '=', p.entityId).where('id', '=', id).executeTakeFirst();
}

/** Moves a refund out of `processing`; false when it is no longer there (another settled it first). */
export async function settleRefundRow(db: Db, p: Partition, id: string, changes: { status: Exclude<RefundStatus, 'processing'>; processor_id?: string }): Promise<boolean> {
  const result = await db
    .updateTable('payment_refunds')
    .set(changes)
    .where('mode', '=', p.mode)
    .where('entity_id', '=', p.entityId)
    .where('id', '=', id)
    .where('status', '=', 'processing')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The refunds made, newest first: one still in flight at the processor, or refused by it, is not a refund. */
export async function listRefunds(db: Db, p: Partition, limit: number, filter: { intent?: string; startingAfter?: string }): Promise<PaymentRefundTable[]> {
  let query = db.selectFrom('payment_refunds').selectAll().where('mode', '=', p.mode).where('entity_id', '=', p.entityId).where('status', '=', 'succeeded');
  if (filter.intent) query = query.where('intent_id', '=', filter.intent);
  if (filter.startingAfter) query = query.where('id', '<', filter.startingAfter);
  return query.orderBy('id', 'desc').limit(limit + 1).execute();
}

/** The intent or refund that the call named by `recoveryKey` started, if any. */
export async function getRecovery(db: Db, p: Partition, recoveryKey: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('payment_recoveries')
    .select('object_id')
    .where('mode', '=', p.mode)
    .where('entity_id', '=', p.entityId)
    .where('recovery_key', '=', recoveryKey)
    .executeTakeFirst();
  return row?.object_id;
}

export async function insertRecovery(db: Db, row: PaymentRecoveryTable): Promise<void> {
  await db.insertInto('payment_recoveries').values(row).execute();
}

export async function deleteRecovery(db: Db, p: Partition, recoveryKey: string): Promise<void> {
  await db.deleteFrom('payment_recoveries').where('mode', '=', p.mode).where('entity_id', '=', p.entityId).where('recovery_key', '=', recoveryKey).execute();
}

/** Intents in flight at the processor since `before` (ISO time) or longer, of every partition, by id after `after`. */
export async function processingIntents(db: Db, before: string, limit: number, after: string): Promise<PaymentIntentTable[]> {
  return db
    .selectFrom('payment_intents')
    .selectAll()
    .where('status', '=', 'processing')
    .where('updated_at', '<=', before)
    .where('id', '>', after)
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** Refunds in flight at the processor since `before` (ISO time) or longer, of every partition, by id after `after`. */
export async function processingRefunds(db: Db, before: string, limit: number, after: string): Promise<PaymentRefundTable[]> {
  return db
    .selectFrom('payment_refunds')
    .selectAll()
    .where('status', '=', 'processing')
    .where('created_at', '<=', before)
    .where('id', '>', after)
    .orderBy('id')
    .limit(limit)
    .execute();
}
