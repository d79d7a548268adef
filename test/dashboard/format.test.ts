/**
 * The dashboard's number formatting, in Node: `usage.summary` writes sums of units as exact decimal strings
 * since 2027-03-01 and as numbers before; the page, which names no version, shows either alike, the largest
 * first, zeros left out.
 */
import { describe, expect, it } from 'vitest';

// The page's modules are plain JavaScript without declarations: typed here by what the test uses.
const { formatUnits } = (await import('../../src/dashboard/format.js' as string)) as { formatUnits: (units: Record<string, string | number>) => string };

describe('formatUnits', () => {
  it('shows unit sums written as decimal strings, the largest first and zeros left out', () => {
    expect(formatUnits({ inputTokens: '1200', outputTokens: '0', bytes: '25000' })).toBe('25K bytes · 1,200 input tokens');
    expect(formatUnits({ outputTokens: '0' })).toBe('');
  });

  it('shows unit sums written as numbers, as versions before 2027-03-01 write them, the same way', () => {
    expect(formatUnits({ inputTokens: 1200, outputTokens: 0, bytes: 25000 })).toBe('25K bytes · 1,200 input tokens');
  });
});
