/**
 * The `usage` face (docs/contract.md § Usage): summaries over the minute rollups, the raw records, a live stream of
 * records as they are written, and the caller's own metered events. Every read is confined to the key's
 * mode and to entities it may act for (src/faces/usage/scope.ts); ingested events belong to the call's entity.
 */
import type { UsageHandlers } from '../../../generated/server/types.js';
import { follow } from './follow.js';
import { ingest } from './ingest.js';
import { listRecords } from './list-records.js';
import { usageScope } from './scope.js';
import { summarize } from './summary.js';
import type { UsageModuleService } from './service.js';
import { summaryForVersion } from './versions.js';

/** The records this server writes, as the module's running service hands them over. */
function feedOf(ctx: { service<T>(face: string): T | undefined }) {
  const service = ctx.service<UsageModuleService>('usage');
  if (!service) throw new Error('usage.live follows the usage module, which this server has not started.');
  return service.feed;
}

export const handlers: UsageHandlers = {
  async summary(payload, ctx) {
    return summaryForVersion(await summarize(ctx.db, usageScope(ctx, payload.filter), payload, ctx.catalogue.platform.currency), ctx.apiVersion);
  },

  async events(payload, ctx) {
    return listRecords(ctx.db, usageScope(ctx, payload.filter), payload);
  },

  // Declared streamOnly: the router refuses a call that does not ask for a stream before it gets here.
  async live(payload, ctx) {
    return follow(ctx, feedOf(ctx), usageScope(ctx, payload.filter), payload.maxSeconds ?? 60);
  },

  async ingest(payload, ctx) {
    const result = await ingest(ctx.db, { mode: ctx.mode, entityId: ctx.entityId, keyId: ctx.key.id }, payload);
    ctx.reportUnits({ meterEvents: result.accepted });
    return result;
  },
};
