/**
 * Messages, templates and suppression lists of the `email` face, within one (mode, entity) partition, and
 * the send queue of live mode, which spans every partition: due messages are leased like webhook deliveries
 * (a lease that lapses with its worker lets another send), and a message's status moves only through a
 * conditional UPDATE from the statuses that may precede the new one.
 */
import { sql } from 'kysely';
import type { Partition } from '../../store/partition.js';
import type { Db, Mode } from '../../store/schema.js';
import type { EmailMessageTable, EmailStatus, EmailSuppressionTable, EmailTemplateTable } from './tables.js';

export async function insertMessage(db: Db, row: EmailMessageTable): Promise<void> {
  await db.insertInto('email_messages').values(row).execute();
}

export async function getMessage(db: Db, p: Partition, id: string): Promise<EmailMessageTable | undefined> {
  return db.selectFrom('email_messages').selectAll().where('mode', '=', p.mode).where('entity_id', '=', p.entityId).where('id', '=', id).executeTakeFirst();
}

/** Newest first (ids sort by creation), one more than `limit` to tell whether a page follows. */
export async function listMessages(db: Db, p: Partition, limit: number, filter: { status?: EmailStatus; to?: string; startingAfter?: string }): Promise<EmailMessageTable[]> {
  let query = db.selectFrom('email_messages').selectAll().where('mode', '=', p.mode).where('entity_id', '=', p.entityId);
  if (filter.status) query = query.where('status', '=', filter.status);
  // Recipients are kept as a JSON array of mailboxes as given; the address is matched inside it, quoted or in
  // <…>, in lower case on both sides, its LIKE wildcards taken literally.
  if (filter.to) {
    const address = filter.to.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`);
    query = query.where((eb) =>
      eb.or([sql<boolean>`lower(to_addresses) like ${`%"${address}"%`} escape '\\'`, sql<boolean>`lower(to_addresses) like ${`%<${address}>%`} escape '\\'`]),
    );
  }
  if (filter.startingAfter) query = query.where('id', '<', filter.startingAfter);
  return query.orderBy('id', 'desc').limit(limit + 1).execute();
}

/**
 * Moves a message from one of `from` to the state in `changes`; false when it is in none of them (it moved
 * on meanwhile). With `leasedUntil`, only under that lease (a worker whose lease lapsed settles nothing).
 */
export async function moveMessage(
  db: Db,
  p: Partition,
  id: string,
  from: readonly EmailStatus[],
  changes: Partial<EmailMessageTable>,
  leasedUntil?: string,
): Promise<boolean> {
  let query = db
    .updateTable('email_messages')
    .set({ ...changes, updated_at: new Date().toISOString() })
    .where('mode', '=', p.mode)
    .where('entity_id', '=', p.entityId)
    .where('id', '=', id)
    .where('status', 'in', from);
  if (leasedUntil !== undefined) query = query.where('leased_until', '=', leasedUntil);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Leases up to `limit` messages of `modes` due to be sent (queued or deferred, their time come, no live
 * lease), across every partition; returns them as leased. Two workers that pick the same row: the
 * conditional UPDATE gives it to one.
 */
export async function leaseDueMessages(db: Db, options: { now: string; leaseUntil: string; limit: number; modes: readonly Mode[]; skipLocked: boolean }): Promise<EmailMessageTable[]> {
  const due = db
    .selectFrom('email_messages')
    .select('id')
    .where('mode', 'in', options.modes)
    .where('status', 'in', ['queued', 'deferred'])
    .where('next_attempt_at', '<=', options.now)
    .where((eb) => eb.or([eb('leased_until', 'is', null), eb('leased_until', '<=', options.now)]))
    .orderBy('next_attempt_at')
    .limit(options.limit)
    .$if(options.skipLocked, (q) => q.forUpdate().skipLocked());
  const ids = (await due.execute()).map((r) => r.id);
  if (ids.length === 0) return [];
  return db
    .updateTable('email_messages')
    .set({ leased_until: options.leaseUntil })
    .where('mode', 'in', options.modes)
    .where('id', 'in', ids)
    .where('status', 'in', ['queued', 'deferred'])
    .where((eb) => eb.or([eb('leased_until', 'is', null), eb('leased_until', '<=', options.now)]))
    .returningAll()
    .execute();
}

export async function insertTemplate(db: Db, row: EmailTemplateTable): Promise<boolean> {
  // Which row was inserted is read back: the insert's row count is not reported alike by both drivers.
  const inserted = await db.insertInto('email_templates').values(row).onConflict((oc) => oc.columns(['mode', 'entity_id', 'name']).doNothing()).returning('id').executeTakeFirst();
  return inserted?.id === row.id;
}

export async function getTemplate(db: Db, p: Partition, name: string): Promise<EmailTemplateTable | undefined> {
  return db.selectFrom('email_templates').selectAll().where('mode', '=', p.mode).where('entity_id', '=', p.entityId).where('name', '=', name).executeTakeFirst();
}

/** By name, one more than `limit`. */
export async function listTemplates(db: Db, p: Partition, limit: number, startingAfter?: string): Promise<EmailTemplateTable[]> {
  let query = db.selectFrom('email_templates').selectAll().where('mode', '=', p.mode).where('entity_id', '=', p.entityId);
  if (startingAfter) query = query.where('name', '>', startingAfter);
  return query.orderBy('name').limit(limit + 1).execute();
}

export async function updateTemplate(db: Db, p: Partition, name: string, changes: Partial<Pick<EmailTemplateTable, 'subject' | 'text_body' | 'html_body'>>): Promise<boolean> {
  const result = await db
    .updateTable('email_templates')
    .set({ ...changes, updated_at: new Date().toISOString() })
    .where('mode', '=', p.mode)
    .where('entity_id', '=', p.entityId)
    .where('name', '=', name)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deleteTemplate(db: Db, p: Partition, name: string): Promise<boolean> {
  const result = await db.deleteFrom('email_templates').where('mode', '=', p.mode).where('entity_id', '=', p.entityId).where('name', '=', name).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** The given addresses (lower case) that are on the partition's suppression list. */
export async function suppressedAmong(db: Db, p: Partition, addresses: readonly string[]): Promise<string[]> {
  if (addresses.length === 0) return [];
  const rows = await db.selectFrom('email_suppressions').select('address').where('mode', '=', p.mode).where('entity_id', '=', p.entityId).where('address', 'in', addresses).execute();
  return rows.map((r) => r.address);
}

/** Adds addresses to the suppression list; one already there keeps its first reason. */
export async function suppress(db: Db, rows: readonly EmailSuppressionTable[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('email_suppressions').values([...rows]).onConflict((oc) => oc.columns(['mode', 'entity_id', 'address']).doNothing()).execute();
}

/** By address, one more than `limit`. */
export async function listSuppressions(db: Db, p: Partition, limit: number, startingAfter?: string): Promise<EmailSuppressionTable[]> {
  let query = db.selectFrom('email_suppressions').selectAll().where('mode', '=', p.mode).where('entity_id', '=', p.entityId);
  if (startingAfter) query = query.where('address', '>', startingAfter);
  return query.orderBy('address').limit(limit + 1).execute();
}

export async function deleteSuppression(db: Db, p: Partition, address: string): Promise<boolean> {
  const result = await db.deleteFrom('email_suppressions').where('mode', '=', p.mode).where('entity_id', '=', p.entityId).where('address', '=', address).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}
