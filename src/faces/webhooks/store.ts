/**
 * Webhook endpoints of one (mode, entity), and the delivery queue the workers share: due deliveries are
 * leased (a time until which no other worker takes them), sent, and settled with their attempt in one
 * transaction. On PostgreSQL the lease is taken with `FOR UPDATE SKIP LOCKED`, so concurrent workers split
 * the due rows instead of queueing on them; the lease itself is what keeps two workers from sending one
 * delivery at once, and what hands the deliveries of a worker that died back to the others.
 */
import type { Partition } from '../../store/partition.js';
import type { Db, DeliveryStatus, EventTable, WebhookDeliveryTable, WebhookEndpointTable } from '../../store/schema.js';
import { sealedUnderCurrentKey, sealNullable, unseal, unsealNullable } from '../../store/sealed.js';
import type { WebhookAttemptTable } from './tables.js';

// Signing secrets are sealed in the store (sealed.ts): written sealed, read open.
const sealSecrets = <T extends Partial<Pick<WebhookEndpointTable, 'secret' | 'previous_secret'>>>(row: T): T => ({
  ...row,
  ...(row.secret !== undefined ? { secret: sealNullable(row.secret) } : {}),
  ...(row.previous_secret !== undefined ? { previous_secret: sealNullable(row.previous_secret) } : {}),
});
const openSecrets = <T extends Pick<WebhookEndpointTable, 'secret' | 'previous_secret'>>(row: T): T => ({
  ...row,
  secret: unseal(row.secret),
  previous_secret: unsealNullable(row.previous_secret),
});

export async function insertEndpoint(db: Db, row: WebhookEndpointTable): Promise<void> {
  await db.insertInto('webhook_endpoints').values(sealSecrets(row)).execute();
}

/**
 * Seals again, under the current key, every signing secret sealed under a previous key (or written before
 * sealing existed); run at start, so that a rotated key can be dropped once the idempotency records it sealed
 * have expired (the module does it as a server starts, index.ts). Returns how many endpoints changed.
 */
export async function resealEndpointSecrets(db: Db): Promise<number> {
  const rows = await db.selectFrom('webhook_endpoints').select(['id', 'secret', 'previous_secret']).execute();
  let changed = 0;
  for (const row of rows) {
    if (sealedUnderCurrentKey(row.secret) && (row.previous_secret === null || sealedUnderCurrentKey(row.previous_secret))) continue;
    const open = openSecrets(row);
    // Only if the secrets are still those read: a rotation made meanwhile by another process is kept.
    const result = await db
      .updateTable('webhook_endpoints')
      .set(sealSecrets({ secret: open.secret, previous_secret: open.previous_secret }))
      .where('id', '=', row.id)
      .where('secret', '=', row.secret)
      .where((eb) => (row.previous_secret === null ? eb('previous_secret', 'is', null) : eb('previous_secret', '=', row.previous_secret)))
      .executeTakeFirst();
    changed += Number(result.numUpdatedRows);
  }
  return changed;
}

export async function countEndpoints(db: Db, p: Partition): Promise<number> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('mode', '=', p.mode)
    .where('entity_id', '=', p.entityId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function getEndpoint(db: Db, p: Partition, id: string): Promise<WebhookEndpointTable | undefined> {
  const row = await db.selectFrom('webhook_endpoints').selectAll().where('mode', '=', p.mode).where('entity_id', '=', p.entityId).where('id', '=', id).executeTakeFirst();
  return row && openSecrets(row);
}

/** Newest first; one more than `limit`, so the caller can tell whether another page follows. */
export async function listEndpoints(db: Db, p: Partition, page: { limit: number; startingAfter?: string }): Promise<WebhookEndpointTable[]> {
  let query = db.selectFrom('webhook_endpoints').selectAll().where('mode', '=', p.mode).where('entity_id', '=', p.entityId);
  if (page.startingAfter) query = query.where('id', '<', page.startingAfter);
  return (await query.orderBy('id', 'desc').limit(page.limit + 1).execute()).map(openSecrets);
}

export async function updateEndpoint(
  db: Db,
  p: Partition,
  id: string,
  changes: Partial<Omit<WebhookEndpointTable, 'id' | 'mode' | 'entity_id' | 'created_at'>>,
): Promise<WebhookEndpointTable | undefined> {
  await db.updateTable('webhook_endpoints').set(sealSecrets(changes)).where('mode', '=', p.mode).where('entity_id', '=', p.entityId).where('id', '=', id).execute();
  return getEndpoint(db, p, id);
}

/** Deletes an endpoint with its deliveries and their attempts; false when there was none. */
export async function deleteEndpoint(db: Db, p: Partition, id: string): Promise<boolean> {
  const result = await db.deleteFrom('webhook_endpoints').where('mode', '=', p.mode).where('entity_id', '=', p.entityId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

export interface DeliveryFilter {
  endpointId?: string;
  eventId?: string;
  status?: DeliveryStatus;
  limit: number;
  startingAfter?: string;
}

/** Deliveries of a partition, newest first (one more than `limit`), with their event type and attempts. */
export async function listDeliveries(db: Db, p: Partition, filter: DeliveryFilter) {
  let query = db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .selectAll('d')
    .select('e.type as event_type')
    .where('d.mode', '=', p.mode)
    .where('d.entity_id', '=', p.entityId);
  if (filter.endpointId) query = query.where('d.endpoint_id', '=', filter.endpointId);
  if (filter.eventId) query = query.where('d.event_id', '=', filter.eventId);
  if (filter.status) query = query.where('d.status', '=', filter.status);
  if (filter.startingAfter) query = query.where('d.id', '<', filter.startingAfter);
  const deliveries = await query.orderBy('d.id', 'desc').limit(filter.limit + 1).execute();
  const attempts = deliveries.length
    ? await db.selectFrom('webhook_attempts').selectAll().where('delivery_id', 'in', deliveries.map((d) => d.id)).orderBy('attempt').execute()
    : [];
  return deliveries.map((d) => ({ ...d, attemptRows: attempts.filter((a) => a.delivery_id === d.id) }));
}

/**
 * Leases up to `limit` due deliveries until `leaseUntil`; returns their ids. A row is due when it is pending,
 * its next attempt has come, and no live lease holds it.
 */
export async function leaseDueDeliveries(db: Db, options: { now: string; leaseUntil: string; limit: number; skipLocked: boolean }): Promise<string[]> {
  // The due rows are chosen once, in a materialized CTE: as a plain `IN (SELECT … LIMIT n)` PostgreSQL may
  // plan a semi join that runs the limited subquery again for every row, and lease far more than n.
  // The lease condition is checked again on each row as it is updated, so of two workers that picked the
  // same row only the first takes it.
  const leased = await db
    .with(
      (cte) => cte('due').materialized(),
      (qb) =>
        qb
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('status', '=', 'pending')
          .where('next_attempt_at', '<=', options.now)
          .where((eb) => eb.or([eb('leased_until', 'is', null), eb('leased_until', '<=', options.now)]))
          .orderBy('next_attempt_at')
          .limit(options.limit)
          .$if(options.skipLocked, (q) => q.forUpdate().skipLocked()),
    )
    .updateTable('webhook_deliveries')
    .set({ leased_until: options.leaseUntil })
    .where('id', 'in', (eb) => eb.selectFrom('due').select('id'))
    .where('status', '=', 'pending')
    .where((eb) => eb.or([eb('leased_until', 'is', null), eb('leased_until', '<=', options.now)]))
    .returning('id')
    .execute();
  return leased.map((r) => r.id);
}

/** Leased deliveries with what sending them needs, in one query. */
export async function loadDeliveries(db: Db, ids: string[]) {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .innerJoin('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
    .selectAll('d')
    .select([
      'e.type as e_type', 'e.api_version as e_api_version', 'e.request_id as e_request_id', 'e.idempotency_key as e_idempotency_key',
      'e.data as e_data', 'e.created_at as e_created_at',
      'w.url as w_url', 'w.status as w_status', 'w.secret as w_secret', 'w.previous_secret as w_previous_secret',
      'w.previous_secret_expires_at as w_previous_secret_expires_at',
    ])
    .where('d.id', 'in', ids)
    .execute();
  return rows.map((row) => {
    const event: EventTable = {
      id: row.event_id, mode: row.mode, entity_id: row.entity_id, type: row.e_type, api_version: row.e_api_version,
      request_id: row.e_request_id, idempotency_key: row.e_idempotency_key, data: row.e_data, created_at: row.e_created_at,
    };
    const endpoint = {
      id: row.endpoint_id, url: row.w_url, status: row.w_status, secret: unseal(row.w_secret), previous_secret: unsealNullable(row.w_previous_secret),
      previous_secret_expires_at: row.w_previous_secret_expires_at,
    };
    const delivery: WebhookDeliveryTable = {
      id: row.id, event_id: row.event_id, endpoint_id: row.endpoint_id, mode: row.mode, entity_id: row.entity_id, status: row.status,
      attempts: row.attempts, next_attempt_at: row.next_attempt_at, leased_until: row.leased_until, first_attempt_at: row.first_attempt_at,
      last_status: row.last_status, last_error: row.last_error, created_at: row.created_at, updated_at: row.updated_at,
    };
    return { delivery, event, endpoint };
  });
}

export type DeliveryJob = Awaited<ReturnType<typeof loadDeliveries>>[number];

export interface Settlement {
  /** The lease under which the delivery was sent; a delivery leased again since is left alone. */
  leasedUntil: string;
  attempt?: WebhookAttemptTable;
  status: DeliveryStatus;
  nextAttemptAt: string;
  firstAttemptAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
  /** Disables the endpoint (it answered 410 Gone). */
  disableEndpoint?: boolean;
}

/** Records an attempt and the delivery's new state together; false when the lease was lost meanwhile. */
export async function settleDelivery(db: Db, delivery: WebhookDeliveryTable, s: Settlement): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const now = new Date().toISOString();
    const updated = await trx
      .updateTable('webhook_deliveries')
      .set({
        status: s.status,
        attempts: s.attempt ? delivery.attempts + 1 : delivery.attempts,
        next_attempt_at: s.nextAttemptAt,
        leased_until: null,
        first_attempt_at: s.firstAttemptAt,
        last_status: s.lastStatus,
        last_error: s.lastError,
        updated_at: now,
      })
      .where('id', '=', delivery.id)
      .where('leased_until', '=', s.leasedUntil)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) !== 1) return false;
    if (s.attempt) await trx.insertInto('webhook_attempts').values(s.attempt).execute();
    if (s.disableEndpoint) {
      await trx.updateTable('webhook_endpoints').set({ status: 'disabled', disabled_reason: 'gone', updated_at: now }).where('id', '=', delivery.endpoint_id).execute();
    }
    return true;
  });
}
