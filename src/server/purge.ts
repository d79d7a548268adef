/**
 * What a server deletes now and then: idempotency records past their expiry, events (and their deliveries)
 * past their retention, and usage records and rollups past theirs. A failed purge is logged; the next comes
 * at the next interval.
 */
import { log } from '../core/log.js';
import type { BackgroundWork } from '../core/face-module.js';
import { purgeEvents } from '../store/events.js';
import { purgeExpiredIdempotency } from '../store/idempotency.js';
import type { Db } from '../store/schema.js';
import { purgeUsage } from '../usage/purge.js';

/** How often the purge runs. */
const PURGE_INTERVAL_MS = 10 * 60_000;

export interface Retention {
  eventDays: number;
  usageDays: number;
  rollupDays: number;
}

export function retentionPurge(db: Db, retention: Retention): BackgroundWork {
  const before = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();
  let timer: NodeJS.Timeout | undefined;
  const pass = () => {
    purgeUsage(db, before(retention.usageDays), before(retention.rollupDays)).catch((error: unknown) => log.error({ err: error }, 'usage purge failed'));
    purgeExpiredIdempotency(db, new Date().toISOString()).catch((error: unknown) => log.error({ err: error }, 'idempotency purge failed'));
    purgeEvents(db, before(retention.eventDays)).catch((error: unknown) => log.error({ err: error }, 'event purge failed'));
  };
  return {
    start: () => void (timer = setInterval(pass, PURGE_INTERVAL_MS).unref()),
    stop: async () => clearInterval(timer),
  };
}
