/**
 * Retention of usage: raw records go after `USAGE_RETENTION_DAYS`, minute rollups (what summaries read)
 * after `USAGE_ROLLUP_RETENTION_DAYS`, so summaries reach back far longer than raw records.
 */
import type { Db } from '../store/schema.js';
import { idTimePrefix } from '../store/secrets.js';

/** Deletes raw records answered before `recordsBefore` and rollups of minutes before `rollupsBefore` (ISO times). */
export async function purgeUsage(db: Db, recordsBefore: string, rollupsBefore: string): Promise<void> {
  // Ids sort by the time they were made (the time of the answer), so the primary key finds the old ones.
  await db.deleteFrom('usage_records').where('id', '<', idTimePrefix('use', Date.parse(recordsBefore))).execute();
  const minute = rollupsBefore.slice(0, 16);
  await db.deleteFrom('usage_rollups').where('minute', '<', minute).execute();
  await db.deleteFrom('usage_unit_rollups').where('minute', '<', minute).execute();
}
