/**
 * The split of a summary's range into rollup periods: whole days, then whole hours, then minutes, exactly
 * covering the range and nothing more.
 */
import { describe, expect, it } from 'vitest';
import { segments } from '../../src/faces/usage/segments.js';

const at = (iso: string) => Date.parse(iso);

describe('summary segments', () => {
  it.each([
    ['minutes within an hour', '2026-11-24T10:05Z', '2026-11-24T10:40Z', 'day', [['minute', '2026-11-24T10:05', '2026-11-24T10:40']]],
    ['hours and minute edges', '2026-11-24T10:05Z', '2026-11-24T13:20Z', 'day', [
      ['minute', '2026-11-24T10:05', '2026-11-24T11:00'],
      ['hour', '2026-11-24T11', '2026-11-24T13'],
      ['minute', '2026-11-24T13:00', '2026-11-24T13:20'],
    ]],
    ['days, hours and minutes', '2026-11-01T22:30Z', '2026-11-24T01:10Z', 'day', [
      ['minute', '2026-11-01T22:30', '2026-11-01T23:00'],
      ['hour', '2026-11-01T23', '2026-11-02T00'],
      ['day', '2026-11-02', '2026-11-24'],
      ['hour', '2026-11-24T00', '2026-11-24T01'],
      ['minute', '2026-11-24T01:00', '2026-11-24T01:10'],
    ]],
    ['whole days only', '2026-11-01T00:00Z', '2026-11-03T00:00Z', 'day', [['day', '2026-11-01', '2026-11-03']]],
    ['grouped by hour: no days', '2026-11-01T00:00Z', '2026-11-03T00:30Z', 'hour', [
      ['hour', '2026-11-01T00', '2026-11-03T00'],
      ['minute', '2026-11-03T00:00', '2026-11-03T00:30'],
    ]],
    ['grouped by minute: minutes only', '2026-11-01T00:00Z', '2026-11-01T02:00Z', 'minute', [['minute', '2026-11-01T00:00', '2026-11-01T02:00']]],
  ] as const)('%s', (_name, from, to, coarsest, expected) => {
    expect(segments(at(from), at(to), coarsest).map((s) => [s.grain, s.from, s.to])).toEqual(expected);
  });
});
