/**
 * Migration 0018_exact_meter_sums (registered in migrations.ts): usage units and meter values become exact
 * decimals (store/exact-decimal.ts) where they were floats, and the meter rollups are added up again from the
 * raw events, which are kept for good, so that a store whose rollups were summed in floating point is corrected.
 *
 * Each float is read as the shortest decimal that reads back as the same float: what the caller sent for a
 * meter event (JSON numbers are floats), exactly. Unit rollups have no raw records left to add up beyond the
 * records' retention; their sums of whole units are exact as floats up to 2⁵³, and are kept as they are.
 * Platform meters (storage.storedByteDays) have no raw events and are kept as they are too.
 */
import { sql, type Kysely } from 'kysely';
import { decimalColumnType, decimalSum, onPostgres } from './exact-decimal.js';

const COLUMNS = [
  ['usage_meter_events', 'value'],
  ['usage_meter_rollups', 'value'],
  ['usage_unit_rollups', 'amount'],
  ['usage_unit_rollups_coarse', 'amount'],
] as const;

export async function exactMeterSums(db: Kysely<unknown>): Promise<void> {
  if (onPostgres(db)) {
    // The migrator runs this in a transaction. A positive setting prints floats in their shortest exact form.
    await sql`set local extra_float_digits = 1`.execute(db);
    for (const [table, column] of COLUMNS) {
      await sql`alter table ${sql.table(table)} alter column ${sql.ref(column)} type numeric using ${sql.ref(column)}::text::numeric`.execute(db);
    }
    await addUpMeterRollups(db);
    return;
  }
  // SQLite cannot change a column's type: a text column takes the float's place. One transaction, so that a
  // stop half-way leaves the store as it was and the next start runs this again.
  await db.transaction().execute(async (trx) => {
    for (const [table, column] of COLUMNS) {
      const exact = `${column}_exact`;
      await trx.schema.alterTable(table).addColumn(exact, decimalColumnType(trx), (c) => c.notNull().defaultTo('0')).execute();
      // decimal_add reads the float as its shortest decimal and answers canonical decimal text.
      await sql`update ${sql.table(table)} set ${sql.ref(exact)} = decimal_add(${sql.ref(column)}, 0)`.execute(trx);
      await trx.schema.alterTable(table).dropColumn(column).execute();
      await trx.schema.alterTable(table).renameColumn(exact, column).execute();
    }
    await addUpMeterRollups(trx);
  });
}

/** Each meter rollup of ingested events becomes the exact sum of its events (rollups purged stay purged). */
async function addUpMeterRollups(db: Kysely<unknown>): Promise<void> {
  await sql`update usage_meter_rollups set value = s.value
    from (select mode, entity_id, substr(time, 1, 16) as minute, type, ${decimalSum(db, sql.ref('value'))} as value
          from usage_meter_events group by mode, entity_id, substr(time, 1, 16), type) as s
    where usage_meter_rollups.mode = s.mode and usage_meter_rollups.entity_id = s.entity_id
      and usage_meter_rollups.minute = s.minute and usage_meter_rollups.type = s.type`.execute(db);
}
