/**
 * The quantity an invoice line rates: the usage of one (mode, entity) over a range of whole minutes, as the
 * usage module totals it (the same rollups `usage.summary` reads), so that the summary over the line's `from`
 * and `to` gives the same quantity back. `cost` is the calls' cost (a decimal in the platform's currency);
 * `meter` the summed `value` of the ingested events of one type, an exact decimal (never a float: 0.1 + 0.2 is
 * 0.3 here). Answers are memoised per range within one rating.
 */
import type { BillingUsageQuery } from '../../../generated/server/types.js';
import type { Partition } from '../../store/partition.js';
import { decimalText, Exact } from '../../store/exact-decimal.js';
import type { Db } from '../../store/schema.js';
import type { UsageService, UsageTotals } from '../usage/service.js';

/** What a price counts (its `usage`), or what an invoice line was rated from (the same two fields). */
export type CountedUsage = Pick<BillingUsageQuery, 'source' | 'meterType'>;

export type UsageQuantities = (usage: CountedUsage, from: string, to: string) => Promise<string>;

/** A reader of quantities for one rating; each range's totals are read once. */
export function usageQuantities(db: Db, p: Partition, service: UsageService): UsageQuantities {
  const read = new Map<string, Promise<UsageTotals>>();
  return async (usage, from, to) => {
    const range = `${from}/${to}`;
    let totals = read.get(range);
    if (!totals) {
      totals = service.totals({ db, mode: p.mode, entityId: p.entityId }, { from, to });
      read.set(range, totals);
    }
    const { cost, meters } = await totals;
    if (usage.source === 'cost') return cost;
    const sum = usage.meterType === undefined ? undefined : meters.get(usage.meterType);
    const value = new Exact(sum ?? 0);
    // A meter may take negative values (a correction); a period's quantity is never below zero.
    return decimalText(Exact.max(value, 0));
  };
}
