/**
 * The transactional outbox (docs/contract.md § Webhooks): the events a call emits are written with the call's own effects,
 * in its transaction, together with one pending delivery per subscribed endpoint. What rolls back sends
 * nothing; what commits is delivered by the workers, at least once, even across restarts.
 */
import { EventEmitter } from 'node:events';
import { newId } from './secrets.js';
import { afterCommit } from './transaction.js';
import { insertRows } from './bulk-insert.js';
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
 * endpoints of their partitions, and the deliveries to those subscribed.
 */
export async function writeEventBatches(db: Db, batches: readonly EventBatch[]): Promise<void> {
  const now = new Date().toISOString();
  const emitted = batches.flatMap(({ origin, events }) => events.map((event) => ({ origin, event })));
  if (emitted.length === 0) return;
  const rows: EventTable[] = emitted.map(({ origin, event }) => ({
    id: event.id,
    mode: origin.mode,
    entity_id: origin.entityId,
    type: event.type,
    api_version: origin.apiVersion,
    request_id: origin.requestId,
    idempotency_key: origin.idempotencyKey ?? null,
    data: JSON.stringify(event.data),
    created_at: now,
  }));
  const partitions = [...new Map(batches.map(({ origin: o }) => [`${o.mode}:${o.entityId}`, o])).values()];
  await insertRows(db, 'events', rows);
  const endpoints = await db
    .selectFrom('webhook_endpoints')
    .select(['id', 'mode', 'entity_id', 'event_types'])
    .where('status', '=', 'enabled')
    .where((eb) => eb.or(partitions.map((p) => eb.and([eb('mode', '=', p.mode), eb('entity_id', '=', p.entityId)]))))
    .execute();
  if (endpoints.length === 0) return;
  const subscribed = endpoints.map((e) => ({ ...e, patterns: JSON.parse(e.event_types) as string[] }));
  const deliveries = emitted.flatMap(({ origin, event }) =>
    subscribed
      .filter((e) => e.mode === origin.mode && e.entity_id === origin.entityId)
      .filter((e) => (event.endpointId ? e.id === event.endpointId : e.patterns.some((p) => matchesEventPattern(p, event.type))))
      .map((e) => newDelivery(event.id, e.id, origin, now)),
  );
  if (deliveries.length > 0) {
    await insertRows(db, 'webhook_deliveries', deliveries);
    afterCommit(db, announce);
  }
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
  const result = await db.deleteFrom('events').where('created_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
