/**
 * The quantity an invoice line rates: the usage of one (mode, entity) over a range of whole minutes, read
 * exactly as `usage.summary` reads it, so that the summary over the line's `from` and `to` gives the same
 * quantity back. `cost` is the calls' cost (`totals.cost`, a decimal in the platform's currency); `meter` the
 * summed `value` of the ingested events of one type, an exact decimal (never a float: 0.1 + 0.2 is 0.3 here).
 * Answers are memoised per range within one rating.
 */
import type { BillingPriceUsage } from '../../../generated/server/types.js';
import type { Partition } from '../../store/partition.js';
import { decimalText, Exact } from '../../store/exact-decimal.js';
import type { Db } from '../../store/schema.js';
import { summarize } from '../../usage/summary.js';

export type UsageQuantities = (usage: BillingPriceUsage, from: string, to: string) => Promise<string>;

/** A reader of quantities for one rating; each range's summary is read once. */
export function usageQuantities(db: Db, p: Partition): UsageQuantities {
  const summaries = new Map<string, ReturnType<typeof summarize>>();
  return async (usage, from, to) => {
    const range = `${from}/${to}`;
    let summary = summaries.get(range);
    if (!summary) {
      // The currency only labels the summary's answer; the quantity is the decimal either way.
      summary = summarize(db, { mode: p.mode, entities: [p.entityId], filter: {} }, { from, to }, '');
      summaries.set(range, summary);
    }
    const { totals, meters } = await summary;
    if (usage.source === 'cost') return totals.cost;
    // summarize answers the sums as decimal strings (the newest version's shape).
    const value = new Exact(meters.find((m) => m.type === usage.meterType)?.value ?? 0);
    // A meter may take negative values (a correction); a period's quantity is never below zero.
    return decimalText(Exact.max(value, 0));
  };
}
