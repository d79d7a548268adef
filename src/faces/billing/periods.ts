/**
 * Billing periods: period n of a subscription runs from its anchor plus n × (interval × count) to the anchor
 * plus n + 1 of them, in UTC. Months are counted from the anchor, not from the previous period, with the day
 * clamped to the month's length as Stripe does: an anchor on 31 January gives 28 (or 29) February, then
 * 31 March, never drifting to the 28th. Periods start on whole minutes, the grain of usage rollups.
 */
export type Interval = 'day' | 'week' | 'month';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** `at` truncated to its minute. */
export function wholeMinute(at: number): number {
  return Math.floor(at / MINUTE_MS) * MINUTE_MS;
}

/** The end of the minute `at` is in (`at` itself on a whole minute). */
export function endOfMinute(at: number): number {
  return Math.ceil(at / MINUTE_MS) * MINUTE_MS;
}

/** The anchor moved by `steps` intervals. */
export function addIntervals(anchor: number, interval: Interval, steps: number): number {
  if (interval === 'day') return anchor + steps * DAY_MS;
  if (interval === 'week') return anchor + steps * 7 * DAY_MS;
  const from = new Date(anchor);
  const month = from.getUTCMonth() + steps;
  const year = from.getUTCFullYear() + Math.floor(month / 12);
  const inYear = ((month % 12) + 12) % 12;
  const lastDay = new Date(Date.UTC(year, inYear + 1, 0)).getUTCDate();
  return Date.UTC(year, inYear, Math.min(from.getUTCDate(), lastDay), from.getUTCHours(), from.getUTCMinutes(), from.getUTCSeconds(), from.getUTCMilliseconds());
}

/** Period `n` (from 0) of a subscription, as ISO instants. */
export function period(anchor: string, interval: Interval, count: number, n: number): { start: string; end: string } {
  const at = Date.parse(anchor);
  return { start: new Date(addIntervals(at, interval, n * count)).toISOString(), end: new Date(addIntervals(at, interval, (n + 1) * count)).toISOString() };
}
