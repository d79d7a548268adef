/**
 * On PostgreSQL, the writes of a group commit made by one statement where no endpoint subscribes to them.
 * A group's transaction there is a round trip per statement (begin, the events, the endpoints, the
 * deliveries, the stored replies, the commit), and each costs the server a socket write and PostgreSQL a
 * statement of its own. Most events have no enabled endpoint in their partition, and so no deliveries: one
 * statement reads the endpoints of the group's partitions, stores the replies of the calls in partitions
 * with none, and inserts those calls' events, as one atomic statement commits. A call's events go in only
 * when its reply was stored (its claim still held), so each call writes all of its part or none. The
 * statement tells which calls it left: those of subscribed partitions, for the group's transaction to write
 * with their deliveries, and those whose claims were taken over, which must not write at all.
 *
 * The rows go in as one array per column (`unnest`), so the text is the same whatever the number of calls,
 * events and partitions: it is a prepared statement (prepared-statement.ts).
 */
import { eventRows, partitionsOf } from './events.js';
import type { GroupedWrite } from './grouped-write.js';
import { partitionKey } from './partition-endpoints.js';
import { runPrepared } from './prepared-statement.js';
import type { Db } from './schema.js';
import { seal } from './sealed.js';

const EVENT_COLUMNS = ['id', 'mode', 'entity_id', 'type', 'api_version', 'request_id', 'idempotency_key', 'data', 'created_at'] as const;
/** A stored reply's columns and their types: its call's place in the group, its partition (null without events), the reply. */
const REPLY_COLUMNS = { call: 'integer', mode: 'text', entity_id: 'text', scope: 'text', key: 'text', leased_until: 'text', status: 'integer', body: 'text', headers: 'text' } as const;
type ReplyRow = Record<keyof typeof REPLY_COLUMNS, unknown>;

/** `columns` as arrays, from placeholder `first` on, unnested into rows named `alias`. */
const rowsOf = (first: number, columns: Record<string, string>, alias: string) =>
  `unnest(${Object.values(columns).map((type, i) => `$${first + i}::${type}[]`).join(', ')}) as ${alias} (${Object.keys(columns).join(', ')})`;

const EVENT_TYPES = Object.fromEntries(EVENT_COLUMNS.map((column) => [column, 'text']));
const ENDPOINTS = `endpoints as (
  select e.mode, e.entity_id from webhook_endpoints e
  join unnest($1::text[], $2::text[]) as p (mode, entity_id) on e.mode = p.mode and e.entity_id = p.entity_id
  where e.status = 'enabled'
)`;
const INSERT_EVENTS = `insert into events (${EVENT_COLUMNS.join(', ')})
  select ${EVENT_COLUMNS.map((c) => `v.${c}`).join(', ')}`;
const UNSUBSCRIBED = 'not exists (select 1 from endpoints e where e.mode = v.mode and e.entity_id = v.entity_id)';
const SUBSCRIBED_PARTITIONS = 'select distinct mode, entity_id, null::integer as call from endpoints';

/** A group of events only (the plain calls of a busy server): no part for replies, which costs PostgreSQL less. */
const EVENTS_ONLY = `with ${ENDPOINTS}, placed as (
  ${INSERT_EVENTS}
  from ${rowsOf(3, EVENT_TYPES, 'v')}
  where ${UNSUBSCRIBED}
)
${SUBSCRIBED_PARTITIONS}`;

const REPLIES_FROM = 3;
const EVENTS_FROM = REPLIES_FROM + Object.keys(REPLY_COLUMNS).length;

/**
 * A group with stored replies. Each event names its call, so that the events of a call whose reply could not
 * be stored (its claim taken over) stay out.
 */
const WITH_REPLIES = `with ${ENDPOINTS}, due as (
  select d.* from ${rowsOf(REPLIES_FROM, REPLY_COLUMNS, 'd')}
  where not exists (select 1 from endpoints e where e.mode = d.mode and e.entity_id = d.entity_id)
), stored as (
  update idempotency_records as r set state = 'done', status = d.status, body = d.body, headers = d.headers, leased_until = null
  from due d
  -- The claim still held, as idempotency.ts's completions require (heldBy).
  where r.scope = d.scope and r.key = d.key and r.state = 'running' and r.leased_until = d.leased_until
  returning d.call
), lost as (
  select d.call from due d where not exists (select 1 from stored s where s.call = d.call)
), placed as (
  ${INSERT_EVENTS}
  from ${rowsOf(EVENTS_FROM, { ...EVENT_TYPES, call: 'integer' }, 'v')}
  where ${UNSUBSCRIBED} and not exists (select 1 from lost l where l.call = v.call)
)
${SUBSCRIBED_PARTITIONS}
union all
select null, null, call from lost`;

/** The positions of the writes a statement left: in a partition with an enabled endpoint, or of a claim taken over. */
export interface Unwritten {
  subscribed: Set<number>;
  lost: Set<number>;
}

/**
 * Commits the writes of the calls whose partitions have no enabled endpoint and whose claims are still held,
 * in one statement, and says which it left. Every event of a call shares its partition, so a call's writes
 * are committed whole or not at all. `now` is the events' time.
 */
export async function writeUnsubscribed(db: Db, writes: readonly GroupedWrite[], now: string): Promise<Unwritten> {
  const batches = writes.flatMap((write) => (write.events ? [write.events] : []));
  const partitions = [...partitionsOf(batches).values()];
  const parameters: unknown[] = [partitions.map((p) => p.mode), partitions.map((p) => p.entityId)];
  // An array per column: the replies', and the events' followed by each event's call.
  const replyColumns = Object.keys(REPLY_COLUMNS) as (keyof ReplyRow)[];
  const replies: unknown[][] = replyColumns.map(() => []);
  const events: unknown[][] = Array.from({ length: EVENT_COLUMNS.length + 1 }, () => []);
  writes.forEach(({ events: batch, completion }, call) => {
    if (completion) {
      const { scope, key, leaseUntil, status, headers } = completion;
      const row: ReplyRow = { call, mode: batch?.origin.mode ?? null, entity_id: batch?.origin.entityId ?? null, scope, key, leased_until: leaseUntil, status, body: seal(completion.body), headers };
      replyColumns.forEach((column, i) => replies[i]!.push(row[column]));
    }
    if (batch) {
      for (const row of eventRows([batch], now)) {
        EVENT_COLUMNS.forEach((column, i) => events[i]!.push(row[column]));
        events[EVENT_COLUMNS.length]!.push(call);
      }
    }
  });
  const withReplies = replies[0]!.length > 0;
  if (withReplies) parameters.push(...replies, ...events);
  else parameters.push(...events.slice(0, EVENT_COLUMNS.length));
  const { rows } = await runPrepared<Left>(db, withReplies ? 'group.unsubscribed' : 'group.unsubscribed-events', withReplies ? WITH_REPLIES : EVENTS_ONLY, parameters);
  const lost = new Set<number>();
  const partitionsLeft = new Set<string>();
  for (const row of rows) {
    if (row.call === null) partitionsLeft.add(partitionKey(row.mode!, row.entity_id!));
    else lost.add(row.call);
  }
  const subscribed = new Set<number>();
  writes.forEach(({ events: batch }, call) => {
    if (batch && partitionsLeft.has(partitionKey(batch.origin.mode, batch.origin.entityId))) subscribed.add(call);
  });
  return { subscribed, lost };
}

/** A partition with an enabled endpoint (`call` null), or a call whose claim was no longer held. */
type Left = { mode: string | null; entity_id: string | null; call: number | null };
