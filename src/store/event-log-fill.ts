/**
 * The event log's filler, on SQLite. Each event written appends its place to `event_log_pending` (a
 * trigger), on the last page of a table with no index; about every second the filler moves them all to
 * `event_log`, which keeps them in log order (by partition, stored time and id), so that each partition's
 * page is written once for many events instead of once per call. Until it does, the log reads them where they
 * are (event-log.ts): a filler that is late, stopped or failing leaves the log whole, only slower to read.
 *
 * `event_log` is in the usage file (sqlite/usage-file.ts): the copy, which writes the log's pages, runs on
 * that file's writer and holds up no call's commit; the calls' writer then only deletes the copied places
 * from the pending table. Between the two a place is in both tables, which the log reads once.
 */
import { sql } from 'kysely';
import type { BackgroundWork } from '../core/face-module.js';
import { periodic } from '../core/periodic.js';
import { embeddedStore, type EmbeddedStore } from './open.js';
import type { Db } from './schema.js';

/** How often the filler runs: the pending rows a page of the log reads whole are about this much of the calls. */
export const EVENT_LOG_FILL_MS = 1000;

const COLUMNS = sql.raw('mode, entity_id, created_at, id, type');

/** The newest pending place when a fill starts: the fill moves it and every place before it. */
export interface NewestPlace {
  rowid: number;
  id: string;
}

/** Moves every place pending when it starts into the log. */
export async function fillEventLog(db: Db): Promise<void> {
  // Only the embedded store has places pending: PostgreSQL's log is the events' own index (event-log-migration.ts).
  const store = embeddedStore(db);
  if (!store) return;
  const newest = newestPlace(db, store);
  if (!newest) return;
  await copyPlaces(db, store, newest);
  await deleteCopiedPlaces(db, store, newest);
}

/** The newest pending place, read at once on this thread; undefined when none is pending. */
export function newestPlace(db: Db, store: EmbeddedStore): NewestPlace | undefined {
  return store.read(sql`select rowid, id from event_log_pending order by rowid desc limit 1`.compile(db))[0] as NewestPlace | undefined;
}

/**
 * Copies the places up to `newest` into the log, in the log's order so that the places of one partition go in
 * together; a place another fill copied already is left as it is. Synced to disk before the delete that
 * follows, which a power loss must never keep without it.
 */
export async function copyPlaces(db: Db, store: EmbeddedStore, newest: NewestPlace): Promise<void> {
  const query = sql`insert or ignore into event_log (${COLUMNS})
    select ${COLUMNS} from event_log_pending where rowid <= ${newest.rowid} order by mode, entity_id, created_at, id`.compile(db);
  await store.writeUsageBatch([{ query }], { synced: true });
}

/**
 * Deletes the places up to `newest` from the pending table, only while `newest` is still there: a new place
 * then takes a rowid after it, so every place at or before it was copied. Once it is gone (another fill's
 * delete, or the purge), a new place may take an old rowid, and the next fill moves what is left.
 */
export async function deleteCopiedPlaces(db: Db, store: EmbeddedStore, newest: NewestPlace): Promise<void> {
  const query = sql`delete from event_log_pending where rowid <= ${newest.rowid}
    and exists (select 1 from event_log_pending where rowid = ${newest.rowid} and id = ${newest.id})`.compile(db);
  await store.writeBatch([{ query }]);
}

export const eventLogFiller = (db: Db): BackgroundWork => periodic('event log fill', EVENT_LOG_FILL_MS, async () => void (await fillEventLog(db)));
