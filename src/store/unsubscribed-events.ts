/**
 * On PostgreSQL, the events of a group commit written by one statement where no endpoint subscribes to them.
 * A group's transaction there is a round trip per statement (begin, the events, the endpoints, the
 * deliveries, the commit), and each costs the server a socket write and PostgreSQL a statement of its own.
 * Most events have no enabled endpoint in their partition, and so no deliveries: one statement reads the
 * endpoints of the group's partitions and inserts the events of the partitions that have none, as one
 * atomic statement commits. The events of the others are left to the group's transaction, which makes their
 * deliveries; the statement tells which.
 *
 * The rows go in as one array per column (`unnest`), so the text is the same whatever the number of events
 * and partitions: it is a prepared statement (prepared-statement.ts).
 */
import { eventRows, partitionsOf, type EventBatch } from './events.js';
import { partitionKey } from './partition-endpoints.js';
import { runPrepared } from './prepared-statement.js';
import type { Db } from './schema.js';

const COLUMNS = ['id', 'mode', 'entity_id', 'type', 'api_version', 'request_id', 'idempotency_key', 'data', 'created_at'] as const;

const STATEMENT = `with endpoints as (
  select e.mode, e.entity_id from webhook_endpoints e
  join unnest($1::text[], $2::text[]) as p (mode, entity_id) on e.mode = p.mode and e.entity_id = p.entity_id
  where e.status = 'enabled'
), placed as (
  insert into events (${COLUMNS.join(', ')})
  select ${COLUMNS.map((c) => `v.${c}`).join(', ')}
  from unnest(${COLUMNS.map((_, i) => `$${i + 3}::text[]`).join(', ')}) as v (${COLUMNS.join(', ')})
  where not exists (select 1 from endpoints e where e.mode = v.mode and e.entity_id = v.entity_id)
)
select distinct mode, entity_id from endpoints`;

/**
 * Writes the events of the batches whose partitions have no enabled endpoint, in one statement, and returns
 * the other batches, unwritten. Every event of a batch shares its partition, so a batch is written whole or
 * not at all.
 */
export async function writeUnsubscribedEvents(db: Db, batches: readonly EventBatch[]): Promise<EventBatch[]> {
  const partitions = partitionsOf(batches);
  const rows = eventRows(batches, new Date().toISOString());
  const parameters: unknown[] = [[...partitions.values()].map((p) => p.mode), [...partitions.values()].map((p) => p.entityId)];
  for (const column of COLUMNS) parameters.push(rows.map((row) => row[column]));
  const { rows: subscribed } = await runPrepared<Subscribed>(db, 'events.unsubscribed', STATEMENT, parameters);
  if (subscribed.length === 0) return [];
  const withEndpoints = new Set(subscribed.map((s) => partitionKey(s.mode, s.entity_id)));
  return batches.filter(({ origin }) => withEndpoints.has(partitionKey(origin.mode, origin.entityId)));
}

type Subscribed = { mode: string; entity_id: string };
