/**
 * The event log's filler, on SQLite. Each event written appends its place to `event_log_pending` (a
 * trigger), on the last page of a table with no index; about every second the filler moves them all to
 * `event_log`, which keeps them in log order (by partition, stored time and id), so that each partition's
 * page is written once for many events instead of once per call. Until it does, the log reads them where they are (event-log.ts): a
 * filler that is late, stopped or failing leaves the log whole, only slower to read.
 */
import { sql } from 'kysely';
import type { BackgroundWork } from '../core/face-module.js';
import { periodic } from '../core/periodic.js';
import { embeddedStore } from './open.js';
import type { Db } from './schema.js';

/** How often the filler runs: the pending rows a page of the log reads whole are about this much of the calls. */
export const EVENT_LOG_FILL_MS = 1000;

const COLUMNS = sql.raw('mode, entity_id, created_at, id, type');

/** Moves every pending place into the log. */
export async function fillEventLog(db: Db): Promise<void> {
  // Only the embedded store has places pending: PostgreSQL's log is the events' own index (event-log-migration.ts).
  const store = embeddedStore(db);
  if (!store) return;
  // One message to the writer, one transaction: it holds the store's one write lock from the insert on, so
  // nothing is appended between the copy and the delete, and the calls' commits wait for one step only.
  await store.writeBatch([
    // In the log's order, so that the places of one partition go in together.
    { query: sql`insert or ignore into event_log (${COLUMNS}) select ${COLUMNS} from event_log_pending order by mode, entity_id, created_at, id`.compile(db) },
    { query: sql`delete from event_log_pending`.compile(db) },
  ]);
}

export const eventLogFiller = (db: Db): BackgroundWork => periodic('event log fill', EVENT_LOG_FILL_MS, async () => void (await fillEventLog(db)));
