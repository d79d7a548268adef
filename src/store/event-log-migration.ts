/**
 * Migration 0021_event_log_filled_later (registered in migrations.ts): the event log's order moves out of
 * the events table's own index into a table of its own on SQLite, filled after the calls commit
 * (event-log-fill.ts).
 *
 * On SQLite the index `events_log` (mode, entity_id, created_at, id) cost every emitting call's commit a page
 * of its own, one per entity, where everything else a call writes lands on the tables' last pages. Now a
 * trigger appends each event's place to `event_log_pending` as the event is written, and the filler moves them
 * to the table `event_log` now and then, many to a page. PostgreSQL's index takes an event for a few bytes of WAL: there the index stays,
 * and `event_log` is a view of the events. The log reads both names alike (event-log.ts).
 */
import { sql, type Kysely } from 'kysely';
import { onPostgres } from './exact-decimal.js';

export async function eventLogFilledLater(db: Kysely<unknown>): Promise<void> {
  const columns = (db: Kysely<unknown>, table: string) =>
    db.schema
      .createTable(table)
      .addColumn('mode', 'text', (c) => c.notNull())
      .addColumn('entity_id', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull());
  if (onPostgres(db)) {
    // The events' own index keeps the log's order: a view gives the log the same name as on SQLite, and
    // nothing is ever pending. (The migrator runs this in a transaction.)
    await columns(db, 'event_log_pending').execute();
    await db.schema.createView('event_log').as(sql`select mode, entity_id, created_at, id, type from events`).execute();
    return;
  }
  // One transaction, so that a stop half-way leaves the store as it was and the next start runs this again.
  await db.transaction().execute(async (trx) => {
    // No index at all: it is only appended to, read whole, and emptied.
    await columns(trx, 'event_log_pending').execute();
    // Every event written, by this program or any other on the same file, gets its place with it.
    await sql`create trigger events_place_pending after insert on events begin
      insert into event_log_pending (mode, entity_id, created_at, id, type) values (new.mode, new.entity_id, new.created_at, new.id, new.type);
      end`.execute(trx);
    // Its key is the log's order, and the rows are kept in it, with no rowid table beside.
    await columns(trx, 'event_log').addPrimaryKeyConstraint('event_log_pkey', ['mode', 'entity_id', 'created_at', 'id']).modifyEnd(sql`without rowid`).execute();
    // In the key's order (the old index gives it), so that the copy appends rather than splits pages.
    await sql`insert into event_log (mode, entity_id, created_at, id, type)
      select mode, entity_id, created_at, id, type from events order by mode, entity_id, created_at, id`.execute(trx);
    // The retention purge's.
    await trx.schema.createIndex('event_log_created_at').on('event_log').column('created_at').execute();
    await trx.schema.dropIndex('events_log').execute();
  });
}
