/**
 * The event log: the stored events of one (mode, entity), newest first by the time they were stored (events
 * of the same moment by id), filtered by type patterns and a time range. Ids name the moment an event was
 * emitted, which can come well before its call commits, so the order is the stored time, not the id: a page
 * read while calls commit never skips an event that lands among the pages already read. A page is read from
 * `event_log`, kept in that order by its key, and from `event_log_pending`, the places of the events of the
 * last second or so that the filler (event-log-fill.ts) has not moved yet (on SQLite). The two are in two
 * files, and one statement's reads of them are not one snapshot: SQLite begins a statement's read of each
 * file in the order they are attached, the main file (the pending places) first. The filler deletes a
 * place only after its copy committed, so a page that finds a place no longer pending finds it copied; one
 * that finds it in both reads it once.
 * Each event is answered in its wire form (`wireEvent`), the body its webhook deliveries post.
 */
import { sql, type ExpressionBuilder } from 'kysely';
import type { Partition } from './partition.js';
import type { Database, Db, EventTable } from './schema.js';

export interface EventLogQuery {
  /** Patterns as webhook endpoints take them: `*`, `<face>.*`, exact types. None: every type. */
  types?: readonly string[];
  /** ISO times (`toISOString` form): at or after `from`, before `to`. */
  from?: string;
  to?: string;
  /** The event the previous page ended with. */
  after?: Pick<EventTable, 'id' | 'created_at'>;
  limit: number;
}

/** One more than `limit` events, so the caller can tell whether another page follows. */
export function listEvents(db: Db, p: Partition, query: EventLogQuery): Promise<EventTable[]> {
  return eventPage(db, p, query).execute();
}

/** The query of a page of the log. */
export function eventPage(db: Db, p: Partition, query: EventLogQuery) {
  const newest = (table: 'event_log' | 'event_log_pending') => {
    let select = db.selectFrom(table).select(['id', 'created_at']).where('mode', '=', p.mode).where('entity_id', '=', p.entityId);
    const types = query.types;
    if (types && !types.includes('*')) select = select.where((eb) => typeCondition(eb, types));
    if (query.from !== undefined) select = select.where('created_at', '>=', query.from);
    if (query.to !== undefined) select = select.where('created_at', '<', query.to);
    const after = query.after;
    if (after) select = select.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(after.created_at, after.id)));
    return select.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(query.limit + 1);
  };
  // Each table's newest places first, so that a page reads no more of either than it can answer; a place
  // the filler has copied and not yet deleted is in both, and read once.
  const places = db.selectFrom(newest('event_log').as('filled')).selectAll().union(db.selectFrom(newest('event_log_pending').as('pending')).selectAll());
  return db
    .selectFrom(places.as('place'))
    .innerJoin('events', 'events.id', 'place.id')
    .selectAll('events')
    .orderBy('place.created_at', 'desc')
    .orderBy('place.id', 'desc')
    .limit(query.limit + 1);
}

/**
 * The types the patterns cover, as `matchesEventPattern` reads them: `<face>.*` is the prefix `<face>.`,
 * compared exactly (LIKE would ignore case on SQLite).
 */
function typeCondition(eb: ExpressionBuilder<Database, 'event_log' | 'event_log_pending'>, patterns: readonly string[]) {
  const exact = patterns.filter((p) => !p.endsWith('.*'));
  const prefixes = patterns.filter((p) => p.endsWith('.*')).map((p) => p.slice(0, -1));
  return eb.or([
    ...(exact.length > 0 ? [eb('type', 'in', exact)] : []),
    ...prefixes.map((prefix) => eb(sql<string>`substr(type, 1, ${sql.lit(prefix.length)})`, '=', prefix)),
  ]);
}

/**
 * A stored event as the API shows it: what a delivery posts, and what the event log (`events.list`,
 * `events.get`) answers, so that one type reads both.
 */
export function wireEvent(event: EventTable) {
  return {
    id: event.id,
    type: event.type,
    timestamp: event.created_at,
    apiVersion: event.api_version,
    livemode: event.mode === 'live',
    entityId: event.entity_id,
    request: { id: event.request_id, idempotencyKey: event.idempotency_key },
    data: JSON.parse(event.data) as unknown,
  };
}

/** One stored event of a partition, by id. */
export async function getEvent(db: Db, p: Partition, id: string): Promise<EventTable | undefined> {
  return db.selectFrom('events').selectAll().where('mode', '=', p.mode).where('entity_id', '=', p.entityId).where('id', '=', id).executeTakeFirst();
}
