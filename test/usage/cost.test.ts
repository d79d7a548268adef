/**
 * Call costs in exact decimal: nano-unit prices, integer and fractional units, replays, and the decimal form.
 */
import { describe, expect, it } from 'vitest';
import { callCostNanos, nanosToDecimal } from '../../src/faces/usage/cost.js';

const price = { perCall: '0.0005', perUnit: { inputTokens: '0.0000005', outputTokens: '0.000002', seconds: '0.1' } };

describe('call costs', () => {
  it.each([
    [{}, false, '0.0005'],
    [{ inputTokens: 12, outputTokens: 40 }, false, '0.000586'],
    // 0.1 + 0.2 is 0.30000000000000004 in floats; here it is exact.
    [{ seconds: 3 }, false, '0.3005'],
    [{ seconds: 0.25 }, false, '0.0255'],
    [{ inputTokens: 1_000_000_000 }, false, '500.0005'],
    [{ unpriced: 5 }, false, '0.0005'],
    [{ inputTokens: 12 }, true, '0'],
  ])('%j (replayed: %s) costs %s', (units, replayed, expected) => {
    expect(nanosToDecimal(callCostNanos(price, units, replayed))).toBe(expected);
  });

  it('refuses a price finer than a nano-unit', () => {
    expect(() => callCostNanos({ perCall: '0.0000000001', perUnit: {} }, {}, false)).toThrow(/finer than/);
  });

  it('writes nano-units as decimals', () => {
    expect([0n, 1n, 1_000_000_000n, 1_500_000_000n, 123_456_789_012_345n].map(nanosToDecimal)).toEqual(['0', '0.000000001', '1', '1.5', '123456.789012345']);
  });
});
