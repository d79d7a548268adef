/**
 * Migration 0024_usage_record_packs (registered in migrations.ts): raw usage records are kept packed
 * (usage-record-packs.ts). The packs' table is made, with the index every read of records goes by: a
 * partition's packs by their newest id. On PostgreSQL the records kept so far are packed, and their table gives
 * way to the view that unpacks them (and takes the inserts of programs from before), in the migrator's one
 * transaction. On SQLite the records' table is in the usage file, which a transaction of the main file cannot
 * change with it as one: the usage file packs them itself, in a transaction of its own, once this table has
 * moved there (sqlite/usage-file.ts).
 */
import { sql, type Kysely } from 'kysely';
import { onPostgres } from './exact-decimal.js';
import { packTableSql, recordsViewInsertSql, recordsViewSql } from './usage-record-packs.js';

export async function usageRecordPacks(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('usage_record_packs')
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('entity_id', 'text', (c) => c.notNull())
    .addColumn('first_id', 'text', (c) => c.notNull())
    .addColumn('last_id', 'text', (c) => c.notNull())
    .addColumn('records', 'text', (c) => c.notNull())
    .execute();
  // Unique: a pack's newest id is a record's, which no other pack holds (the relay names packs by it).
  await db.schema.createIndex('usage_record_packs_partition').unique().on('usage_record_packs').columns(['mode', 'entity_id', 'last_id']).execute();
  if (!onPostgres(db)) return;
  // The migrator runs this in a transaction. A positive setting prints floats (the latencies) in their shortest exact form.
  await sql`set local extra_float_digits = 1`.execute(db);
  await sql.raw(packTableSql('postgres')).execute(db);
  await db.schema.dropTable('usage_records').execute();
  for (const statement of [recordsViewSql('postgres'), ...recordsViewInsertSql('postgres')]) await sql.raw(statement).execute(db);
}
