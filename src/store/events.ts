/**
 * The transactional outbox (docs/contract.md § Webhooks): the events a call emits are written with the call's own effects,
 * in its transaction, together with one pending delivery per subscribed endpoint (and, on SQLite, a trigger
 * writes its place in the event log: event-log-migration.ts). What rolls back sends nothing; what commits is
 * delivered by the workers, at least once, even across restarts.
 */
import { EventEmitter } from 'node:events';
import { newId } from './secrets.js';
import { afterCommit } from './transaction.js';
import type { CompiledQuery } from 'kysely';
import { insertRows, insertStatements } from './bulk-insert.js';
import { writeUsage } from './write-usage.js';
import { storeKind, type BatchStatement, type EmbeddedStore } from './open.js';
import { endpointsOfPartitions, partitionKey, type Endpoint } from './partition-endpoints.js';
import { precompiled } from './precompiled.js';
import type { Db, EventTable, Mode } from './schema.js';

/** An event as a handler emitted it. */
export interface EmittedEvent {
  /** `evt_…`, given when emitted so the handler can name it in its result. */
  id: string;
  type: string;
  data: unknown;
  /** Deliver to this endpoint only, whatever it subscribes to (a test ping); otherwise to every match. */
  endpointId?: string;
}

/** What every event of one call shares. */
export interface EventOrigin {
  mode: Mode;
  entityId: string;
  apiVersion: string;
  requestId: string;
  idempotencyKey?: string;
}

/** True when an endpoint's pattern (`*`, `<face>.*` or an exact type) covers an event type. */
export function matchesEventPattern(pattern: string, type: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('.*')) return type.startsWith(pattern.slice(0, -1));
  return pattern === type;
}

/** Tells the workers of this process that deliveries are due, so they need not wait for their next poll. */
const queued = new EventEmitter().setMaxListeners(0);

export function onDeliveriesQueued(listener: () => void): () => void {
  queued.on('queued', listener);
  return () => queued.off('queued', listener);
}

const announce = () => queued.emit('queued');

/** The events one call emitted. */
export interface EventBatch {
  origin: EventOrigin;
  events: readonly EmittedEvent[];
}

/**
 * Writes the events and their pending deliveries. Run it on the call's transaction so the events commit or
 * roll back with the effects.
 */
export function writeEvents(db: Db, origin: EventOrigin, events: readonly EmittedEvent[]): Promise<void> {
  return writeEventBatches(db, [{ origin, events }]);
}

/**
 * Writes the events of several calls with three statements whatever their number: the events, the enabled
 * endpoints of their partitions, and the deliveries to those subscribed. `now` is the events' time.
 */
export async function writeEventBatches(db: Db, batches: readonly EventBatch[], now = new Date().toISOString()): Promise<void> {
  const rows = eventRows(batches, now);
  if (rows.length === 0) return;
  await insertRows(db, 'events', rows);
  const { rows: endpoints } = await db.executeQuery<Endpoint>(endpointsOf(db, partitionsOf(batches)));
  const deliveries = deliveryRows(batches, endpoints, now);
  if (deliveries.length > 0) {
    await insertRows(db, 'webhook_deliveries', deliveries);
    afterCommit(db, announce);
  }
}

/**
 * The same writes as statements for one batch of the embedded store (one message to its writer, one
 * transaction). The endpoints are known here, before the batch runs (read, or copied from an earlier group's
 * read: partition-endpoints.ts), so that the deliveries can be made; the batch reads them again and commits
 * only if it finds the same, so a change since fails it rather than missing an endpoint. `committed` is to be
 * run once the batch has committed. `now` is the events' time.
 */
export function eventStatements(store: EmbeddedStore, db: Db, batches: readonly EventBatch[], now = new Date().toISOString()): { statements: BatchStatement[]; committed?: () => void } {
  const rows = eventRows(batches, now);
  if (rows.length === 0) return { statements: [] };
  const partitions = partitionsOf(batches);
  const endpointsQuery = endpointsOf(db, partitions);
  const endpoints = endpointsOfPartitions(db, store, partitions, (unseen) => endpointsOf(db, unseen));
  const deliveries = deliveryRows(batches, endpoints, now);
  const statements: BatchStatement[] = [
    ...insertStatements(db, 'events', rows).map((query) => ({ query })),
    { query: endpointsQuery, rows: JSON.stringify(endpoints) },
    ...insertStatements(db, 'webhook_deliveries', deliveries).map((query) => ({ query })),
  ];
  return deliveries.length > 0 ? { statements, committed: announce } : { statements };
}

export function eventRows(batches: readonly EventBatch[], now: string): EventTable[] {
  const rows: EventTable[] = [];
  for (const { origin, events } of batches) {
    for (const event of events) {
      rows.push({
        id: event.id,
        mode: origin.mode,
        entity_id: origin.entityId,
        type: event.type,
        api_version: origin.apiVersion,
        request_id: origin.requestId,
        idempotency_key: origin.idempotencyKey ?? null,
        data: JSON.stringify(event.data),
        created_at: now,
      });
    }
  }
  return rows;
}

/** The batches' partitions, each once, by key. */
export function partitionsOf(batches: readonly EventBatch[]): Map<string, EventOrigin> {
  const partitions = new Map<string, EventOrigin>();
  for (const { origin } of batches) partitions.set(partitionKey(origin.mode, origin.entityId), origin);
  return partitions;
}

/** The enabled endpoints of the partitions, in id order: compiled once per number of partitions. */
function endpointsOf(db: Db, partitions: ReadonlyMap<string, EventOrigin>): CompiledQuery {
  const values: Record<string, string> = {};
  let i = 0;
  for (const origin of partitions.values()) {
    values[`mode${i}`] = origin.mode;
    values[`entity${i++}`] = origin.entityId;
  }
  const count = partitions.size;
  return precompiled(db, `events.endpoints:${count}`, (db, p) =>
    db
      .selectFrom('webhook_endpoints')
      .select(['id', 'mode', 'entity_id', 'event_types'])
      .where('status', '=', 'enabled')
      .where((eb) => eb.or(Array.from({ length: count }, (_, n) => eb.and([eb('mode', '=', p<Mode>(`mode${n}`)), eb('entity_id', '=', p(`entity${n}`))]))))
      .orderBy('id'),
  values);
}

/** A delivery for each event to each enabled endpoint of its partition that subscribes to it (or that it names). */
function deliveryRows(batches: readonly EventBatch[], endpoints: readonly Endpoint[], now: string) {
  if (endpoints.length === 0) return [];
  const subscribed = endpoints.map((e) => ({ ...e, patterns: JSON.parse(e.event_types) as string[] }));
  return batches.flatMap(({ origin, events }) =>
    events.flatMap((event) =>
      subscribed
        .filter((e) => e.mode === origin.mode && e.entity_id === origin.entityId)
        .filter((e) => (event.endpointId ? e.id === event.endpointId : e.patterns.some((p) => matchesEventPattern(p, event.type))))
        .map((e) => newDelivery(event.id, e.id, origin, now)),
    ),
  );
}

/** Queues an event again for each endpoint (a replay); returns the new deliveries. */
export async function queueDeliveries(db: Db, origin: { mode: Mode; entityId: string }, eventId: string, endpointIds: string[]) {
  if (endpointIds.length === 0) return [];
  const now = new Date().toISOString();
  const rows = endpointIds.map((endpointId) => newDelivery(eventId, endpointId, origin, now));
  await db.insertInto('webhook_deliveries').values(rows).execute();
  afterCommit(db, announce);
  return rows.map((r) => ({ id: r.id, endpointId: r.endpoint_id }));
}

/** A delivery due at once. */
function newDelivery(eventId: string, endpointId: string, origin: { mode: Mode; entityId: string }, now: string) {
  return {
    id: newId('dlv'),
    event_id: eventId,
    endpoint_id: endpointId,
    mode: origin.mode,
    entity_id: origin.entityId,
    status: 'pending' as const,
    attempts: 0,
    next_attempt_at: now,
    leased_until: null,
    first_attempt_at: null,
    last_status: null,
    last_error: null,
    created_at: now,
    updated_at: now,
  };
}

/**
 * Deletes the events created before `before` (ISO time), with their deliveries and attempts; returns how
 * many events. Replays reach back as far as the events are kept.
 */
export async function purgeEvents(db: Db, before: string): Promise<number> {
  // On SQLite the places go first, pending ones before moved ones, so that a fill of this process cannot
  // move an old place into the log after the log's were deleted; the log is in the usage file, written by
  // its writer (event-log-fill.ts). A fill of another process that read the pending places before their
  // delete may still copy one: the log never lists it (its event is gone), and the next purge deletes it.
  // On PostgreSQL `event_log` is a view of the events.
  if (storeKind(db) === 'sqlite') {
    await db.deleteFrom('event_log_pending').where('created_at', '<', before).execute();
    await writeUsage(db, [db.deleteFrom('event_log').where('created_at', '<', before).compile()]);
  }
  const result = await db.deleteFrom('events').where('created_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
