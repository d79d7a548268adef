/**
 * isoTime (src/store/instant.ts): the text `new Date(ms).toISOString()` gives, for every instant, from the
 * seconds it keeps formatted and from those it has not, and the same error for an instant that is no date.
 */
import { describe, expect, it } from 'vitest';
import { isoTime } from '../../src/store/instant.js';

describe('isoTime', () => {
  it('writes what toISOString writes, in and out of its seconds kept, and throws where it throws', () => {
    const now = Date.now();
    const instants = [
      0, 1, 999, 1000, -1, -999, -1000, -1001, 1.9, -1.9, now, now + 1, now + 999, now + 86_400_000,
      Date.UTC(2026, 10, 29, 23, 59, 59, 999), Date.UTC(10000, 0, 1, 0, 0, 0, 7), Date.UTC(-1, 5, 1, 12, 0, 0, 42), 8.64e15, -8.64e15,
    ];
    // Many instants of a few seconds (the cache's case) and of many seconds (where it is cleared again and again).
    for (let i = 0; i < 3000; i++) instants.push(now + (i % 7) * 1000 + ((i * 37) % 1000), now + i * 1013);
    for (const ms of instants) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
    for (const invalid of [NaN, Infinity, 8.64e15 + 1]) expect(() => isoTime(invalid)).toThrow(RangeError);
  });
});
