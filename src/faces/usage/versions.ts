/**
 * `usage.summary` in the shape of the caller's API version. Since 2027-03-01 the sums of units and of meter
 * values are decimal strings (faces/usage.yaml dates the change), since a JSON number cannot carry every sum
 * exactly; older versions keep the numbers they promised, nearest to the exact sum.
 */
import type { UsageSummaryResult, UsageTotals } from '../../../generated/server/types.js';

/** The first version whose sums are decimal strings. */
export const DECIMAL_SUMS_SINCE = '2027-03-01';

/** `summary` (as summarize answers it: sums as decimal strings) for `version`. */
export function summaryForVersion(summary: UsageSummaryResult, version: string): UsageSummaryResult {
  if (version >= DECIMAL_SUMS_SINCE) return summary;
  const numbers = <T extends UsageTotals>(totals: T): T => ({ ...totals, units: Object.fromEntries(Object.entries(totals.units).map(([unit, sum]) => [unit, Number(sum)])) });
  return {
    ...summary,
    groups: summary.groups.map(numbers),
    totals: numbers(summary.totals),
    meters: summary.meters.map((meter) => ({ ...meter, value: Number(meter.value) })),
  };
}
