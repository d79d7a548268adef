/**
 * Retention of usage: raw records go after `USAGE_RETENTION_DAYS`, minute rollups (what summaries read,
 * ingested meters' included) after `USAGE_ROLLUP_RETENTION_DAYS`, so summaries reach back far longer than
 * raw records. A server purges every ten minutes.
 */
import type { BackgroundWork } from '../../core/face-module.js';
import { daysAgo, periodic, PURGE_INTERVAL_MS } from '../../core/periodic.js';
import type { Db } from '../../store/schema.js';
import { idTimePrefix } from '../../store/secrets.js';
import { periodOf } from '../../store/periods.js';

/** Deletes raw records answered before `recordsBefore` and rollups of minutes before `rollupsBefore` (ISO times). */
export async function purgeUsage(db: Db, recordsBefore: string, rollupsBefore: string): Promise<void> {
  // Ids sort by the time they were made (the time of the answer). No index leads with the id, so this scans
  // the table; it runs every ten minutes, off the request path, where an index would cost every record.
  await db.deleteFrom('usage_records').where('id', '<', idTimePrefix('use', Date.parse(recordsBefore))).execute();
  const minute = periodOf(rollupsBefore, 'minute');
  await db.deleteFrom('usage_rollups').where('minute', '<', minute).execute();
  await db.deleteFrom('usage_unit_rollups').where('minute', '<', minute).execute();
  for (const grain of ['hour', 'day'] as const) {
    const period = periodOf(rollupsBefore, grain);
    await db.deleteFrom('usage_rollups_coarse').where('grain', '=', grain).where('period', '<', period).execute();
    await db.deleteFrom('usage_unit_rollups_coarse').where('grain', '=', grain).where('period', '<', period).execute();
  }
  // Meter rollups go with the others; the meter events themselves stay, since an id is counted once ever.
  await db.deleteFrom('usage_meter_rollups').where('minute', '<', minute).execute();
}

/** The purge a server runs, by the module's retention settings. */
export function usagePurge(db: Db, retention: { retentionDays: number; rollupRetentionDays: number }): BackgroundWork {
  return periodic('usage purge', PURGE_INTERVAL_MS, () => purgeUsage(db, daysAgo(retention.retentionDays), daysAgo(retention.rollupRetentionDays)));
}
