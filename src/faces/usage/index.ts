/**
 * The `usage` face module: its handlers (handlers.ts) and, in a server, the usage stage (record-call.ts): one
 * record per call after its answer, written off the hot path by the recorder (recorder.ts) with its rollups,
 * handed to live followers (feed.ts; on PostgreSQL, also those of other processes: relay.ts), purged past
 * its retention (purge.ts), and shown by the dashboard (dashboard-routes.ts). Its settings: USAGE_*
 * (settings.ts). It offers billing the totals of a partition's usage (service.ts, totals.ts). Its tables are the
 * core's (every store has them), written by its stage. Its only background work, the purge, runs in servers:
 * a worker answers no calls, so it has no records of its own to keep in bounds.
 */
import type { UsageHandlers } from '../../../generated/server/types.js';
import type { FaceModule, RunningModule } from '../../core/face-module.js';
import { postgresPool } from '../../store/open.js';
import { registerDashboardRoutes } from './dashboard-routes.js';
import { UsageFeed } from './feed.js';
import { handlers } from './handlers.js';
import { usagePurge } from './purge.js';
import { usageStage } from './record-call.js';
import { UsageRecorder } from './recorder.js';
import { UsageRelay } from './relay.js';
import type { UsageModuleService } from './service.js';
import { usageSettings, type UsageSettings } from './settings.js';
import { usageTotals } from './totals.js';

export const usage: FaceModule<UsageHandlers, UsageSettings> = {
  face: 'usage',
  handlers,
  settings: usageSettings,
  start({ db, settings, platform, faces, process }): RunningModule {
    const feed = new UsageFeed();
    const service: UsageModuleService = { ...usageTotals, feed };
    // A worker answers no calls: it records nothing and serves no page, but billing's closer reads totals.
    if (process === 'worker') return { service };
    const pool = postgresPool(db);
    // Several processes share a PostgreSQL store: each one's live followers also see the others' records.
    const relay = pool && new UsageRelay(db, pool, feed);
    const recorder = new UsageRecorder(db, { flushMs: settings.flushMs, feed, ...(relay ? { relay } : {}) });
    return {
      service,
      background: [usagePurge(db, settings)],
      ...(settings.record ? { afterAnswer: usageStage(recorder, { currency: platform.currency, faces }) } : {}),
      routes: registerDashboardRoutes,
      // Live streams would otherwise hold the stop for up to their time-out.
      stopping: () => feed.endAll(),
      async close() {
        // Calls in flight have been answered by now: what they recorded is written before the store closes.
        await recorder.close();
        relay?.close();
      },
    };
  },
};
