/**
 * The service the usage module offers other faces (service.ts): a partition's totals, summed by the same
 * query as `usage.summary`, and how late a meter event may arrive. It holds no state, so every process has it.
 */
import { INGEST_PAST_MS } from './ingest.js';
import type { UsageService } from './service.js';
import { summarize } from './summary.js';

export const usageTotals: UsageService = {
  meterLateMs: INGEST_PAST_MS,
  async totals({ db, mode, entityId }, range) {
    // The currency only labels a summary's answer; the sums are decimals either way.
    const { totals, meters } = await summarize(db, { mode, entities: [entityId], filter: {} }, range, '');
    return { cost: String(totals.cost), meters: new Map(meters.map((m) => [m.type, String(m.value)])) };
  },
};
