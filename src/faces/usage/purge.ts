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
import { writeUsage } from '../../store/write-usage.js';

/** Deletes raw records answered before `recordsBefore` and rollups of minutes before `rollupsBefore` (ISO times). */
export async function purgeUsage(db: Db, recordsBefore: string, rollupsBefore: string): Promise<void> {
  const minute = periodOf(rollupsBefore, 'minute');
  const coarse = (['hour', 'day'] as const).flatMap((grain) => {
    const period = periodOf(rollupsBefore, grain);
    return [
      db.deleteFrom('usage_rollups_coarse').where('grain', '=', grain).where('period', '<', period).compile(),
      db.deleteFrom('usage_unit_rollups_coarse').where('grain', '=', grain).where('period', '<', period).compile(),
    ];
  });
  // The tables usage records are written to, each delete in a transaction of its own, as the recorder writes
  // them (on the embedded store, by the usage file's writer, which no call waits for). Ids sort by the time they
  // were made (the time of the answer): a pack of records goes once its newest is past, so a record outlives its
  // retention by less than the span of time a pack holds (about 33 s, store/usage-record-packs.ts). No index
  // leads with the id, so the first scans the packs; it runs every ten minutes, off the request path.
  const deletes = [
    db.deleteFrom('usage_record_packs').where('last_id', '<', idTimePrefix('use', Date.parse(recordsBefore))).compile(),
    db.deleteFrom('usage_rollups').where('minute', '<', minute).compile(),
    db.deleteFrom('usage_unit_rollups').where('minute', '<', minute).compile(),
    ...coarse,
  ];
  for (const statement of deletes) await writeUsage(db, [statement]);
  // Meter rollups go with the others; the meter events themselves stay, since an id is counted once ever.
  await db.deleteFrom('usage_meter_rollups').where('minute', '<', minute).execute();
}

/** The purge a server runs, by the module's retention settings. */
export function usagePurge(db: Db, retention: { retentionDays: number; rollupRetentionDays: number }): BackgroundWork {
  return periodic('usage purge', PURGE_INTERVAL_MS, () => purgeUsage(db, daysAgo(retention.retentionDays), daysAgo(retention.rollupRetentionDays)));
}
