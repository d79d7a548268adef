/**
 * What a server deletes now and then: idempotency records past their expiry, and events (and their
 * deliveries) past their retention. A failed purge is logged; the next comes at the next interval.
 */
import type { BackgroundWork } from '../core/face-module.js';
import { log } from '../core/log.js';
import { daysAgo, periodic, PURGE_INTERVAL_MS } from '../core/periodic.js';
import { purgeEvents } from '../store/events.js';
import { purgeExpiredIdempotency } from '../store/idempotency.js';
import type { Db } from '../store/schema.js';

export function retentionPurge(db: Db, eventDays: number): BackgroundWork {
  return periodic('retention purge', PURGE_INTERVAL_MS, async () => {
    // Each on its own: one failing does not keep the other from running.
    await Promise.all([
      purgeExpiredIdempotency(db, new Date().toISOString()).catch((error: unknown) => log.error({ err: error }, 'idempotency purge failed')),
      purgeEvents(db, daysAgo(eventDays)).catch((error: unknown) => log.error({ err: error }, 'event purge failed')),
    ]);
  });
}
