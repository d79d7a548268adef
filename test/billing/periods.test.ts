/**
 * Billing periods: days and weeks are fixed lengths; months count from the anchor with its day clamped to short
 * months (31 January → 28 or 29 February → 31 March), never drifting; periods follow one another without gaps.
 */
import { describe, expect, it } from 'vitest';
import { endOfMinute, period, wholeMinute } from '../../src/faces/billing/periods.js';

describe('billing periods', () => {
  it.each([
    ['2026-01-31T10:15:00.000Z', 1, ['2026-01-31T10:15:00.000Z', '2026-02-28T10:15:00.000Z', '2026-03-31T10:15:00.000Z', '2026-04-30T10:15:00.000Z']],
    ['2028-01-31T00:00:00.000Z', 1, ['2028-01-31T00:00:00.000Z', '2028-02-29T00:00:00.000Z', '2028-03-31T00:00:00.000Z', '2028-04-30T00:00:00.000Z']],
    ['2026-11-30T00:00:00.000Z', 3, ['2026-11-30T00:00:00.000Z', '2027-02-28T00:00:00.000Z', '2027-05-30T00:00:00.000Z', '2027-08-30T00:00:00.000Z']],
  ])('months from %s, %d at a time, keep the anchor day', (anchor, count, starts) => {
    const periods = [0, 1, 2].map((n) => period(anchor, 'month', count, n));
    expect(periods.map((p) => p.start)).toEqual(starts.slice(0, 3));
    expect(periods.map((p) => p.end)).toEqual(starts.slice(1));
  });

  it('counts days and weeks as fixed lengths', () => {
    expect(period('2026-03-28T12:00:00.000Z', 'day', 2, 1)).toEqual({ start: '2026-03-30T12:00:00.000Z', end: '2026-04-01T12:00:00.000Z' });
    expect(period('2026-12-28T00:00:00.000Z', 'week', 1, 1)).toEqual({ start: '2027-01-04T00:00:00.000Z', end: '2027-01-11T00:00:00.000Z' });
  });

  it('rounds to whole minutes', () => {
    const at = Date.parse('2026-05-01T10:15:42.123Z');
    expect(new Date(wholeMinute(at)).toISOString()).toBe('2026-05-01T10:15:00.000Z');
    expect(new Date(endOfMinute(at)).toISOString()).toBe('2026-05-01T10:16:00.000Z');
    expect(endOfMinute(wholeMinute(at))).toBe(wholeMinute(at));
  });
});
