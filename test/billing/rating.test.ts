/**
 * Rating prices: Stripe's documented graduated example, tier bounds, half-even rounding once per line, large
 * quantities, price validation, and properties checked against a unit-by-unit reference in integer arithmetic.
 */
import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rate, validatePrice, type GraduatedPrice, type Price, type Tier } from '../../src/faces/billing/rating.js';

// The test's own decimal arithmetic must not round either (decimal.js defaults to 20 significant digits).
const D = Decimal.clone({ precision: 1e9 });

/** Stripe's "Typographic" graduated example (1–5 at 7 USD, 6–10 at 6.50 USD, 11+ at 6 USD), in cents. */
const typographic: GraduatedPrice = {
  type: 'graduated',
  currency: 'usd',
  tiers: [
    { upTo: 5, unitAmount: '700' },
    { upTo: 10, unitAmount: '650' },
    { upTo: null, unitAmount: '600' },
  ],
};

describe('rating', () => {
  it.each([
    [0, 0],
    [1, 700],
    [5, 3500],
    [6, 4150],
    [10, 6750],
    [11, 7350],
    [20, 12750],
    [25, 15750],
  ])("Stripe's graduated example: %d fonts cost %d cents", (quantity, amount) => {
    expect(rate(typographic, quantity).amount).toBe(amount);
  });

  it('breaks a graduated amount down by tier', () => {
    expect(rate(typographic, 12)).toEqual({
      amount: 7950,
      exact: '7950',
      tiers: [
        { upTo: 5, quantity: '5', unitAmount: '700', flatAmount: 0, amount: '3500' },
        { upTo: 10, quantity: '5', unitAmount: '650', flatAmount: 0, amount: '3250' },
        { upTo: null, quantity: '2', unitAmount: '600', flatAmount: 0, amount: '1200' },
      ],
    });
  });

  const withFlats: Price = {
    type: 'graduated',
    currency: 'eur',
    tiers: [
      { upTo: 100, unitAmount: '0', flatAmount: 1000 },
      { upTo: null, unitAmount: '2.5', flatAmount: 500 },
    ],
  };

  it.each([
    // Zero reaches no tier, so no flat amount is charged.
    ['0', 0, '0'],
    ['1', 1000, '1000'],
    // Exactly on a bound: the bound is inclusive, the next tier (and its flat amount) is not reached.
    ['100', 1000, '1000'],
    ['100.5', 1501, '1501.25'],
    ['101', 1502, '1502.5'], // a tie: half-even goes to the even cent
    ['102', 1505, '1505'],
  ])('adds a flat amount once per tier reached: %s units cost %d (%s exactly)', (quantity, amount, exact) => {
    expect(rate(withFlats, quantity)).toMatchObject({ amount, exact });
  });

  it('reports the flat amount of unreached tiers as 0', () => {
    expect(rate(withFlats, '100').tiers![1]).toEqual({ upTo: null, quantity: '0', unitAmount: '2.5', flatAmount: 0, amount: '0' });
  });

  const twentiethOfACent: Price = { type: 'perUnit', unitAmount: '0.05', currency: 'usd' };

  it.each([
    [10, '0.5', 0],
    [30, '1.5', 2],
    [50, '2.5', 2],
    [70, '3.5', 4],
    [51, '2.55', 3],
    [49, '2.45', 2],
    [0, '0', 0],
  ])('rounds sub-cent amounts half-even: %d units at 0.05 are %s, rounded to %d', (quantity, exact, amount) => {
    expect(rate(twentiethOfACent, quantity)).toEqual({ amount, exact });
  });

  it('rounds once per line, not per tier', () => {
    // Two halves of a cent: rounding each tier half-even would give 0 + 0.
    const price: Price = { type: 'graduated', currency: 'usd', tiers: [{ upTo: 10, unitAmount: '0.05' }, { upTo: null, unitAmount: '0.05' }] };
    const rated = rate(price, 20);
    expect(rated.tiers!.map((t) => t.amount)).toEqual(['0.5', '0.5']);
    expect(rated).toMatchObject({ amount: 1, exact: '1' });
  });

  it('rates fractional quantities (metered GB) and takes a number as the decimal it prints as', () => {
    expect(rate({ type: 'perUnit', unitAmount: '0.5', currency: 'usd' }, '12.345')).toEqual({ amount: 6, exact: '6.1725' });
    // 30 * 0.1 is 3.0000000000000004 in floats.
    expect(rate({ type: 'perUnit', unitAmount: '30', currency: 'usd' }, 0.1)).toEqual({ amount: 3, exact: '3' });
  });

  it('charges a flat price whatever the quantity', () => {
    const price: Price = { type: 'flat', amount: 1999, currency: 'usd' };
    expect(rate(price, 0)).toEqual({ amount: 1999, exact: '1999' });
    expect(rate(price, '7.5')).toEqual({ amount: 1999, exact: '1999' });
  });

  it('keeps large quantities exact', () => {
    expect(rate({ type: 'perUnit', unitAmount: '0.000001', currency: 'usd' }, '123456789012345678901')).toEqual({
      amount: 123456789012346,
      exact: '123456789012345.678901',
    });
    expect(rate({ type: 'perUnit', unitAmount: '0.333333333333', currency: 'usd' }, '3000000000000')).toEqual({ amount: 999999999999, exact: '999999999999' });
    const cheapTail: Price = { type: 'graduated', currency: 'usd', tiers: [{ upTo: 1000, unitAmount: '1' }, { upTo: null, unitAmount: '0.000000000001' }] };
    expect(rate(cheapTail, '9000000000000000001000')).toMatchObject({ amount: 9000001000, exact: '9000001000' });
    expect(rate({ type: 'perUnit', unitAmount: '1', currency: 'usd' }, Number.MAX_SAFE_INTEGER).amount).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('refuses an amount past the safe integers, a bad quantity and an invalid price', () => {
    const unit: Price = { type: 'perUnit', unitAmount: '1', currency: 'usd' };
    expect(() => rate(unit, '9007199254740992')).toThrow(RangeError);
    for (const quantity of [-1, Number.NaN, Number.POSITIVE_INFINITY, '-1', '1e3', '.5', '', ' 1']) {
      expect(() => rate(unit, quantity)).toThrow(/quantity/);
    }
    expect(() => rate({ type: 'perUnit', unitAmount: '-1', currency: 'usd' }, 1)).toThrow(/\/unitAmount/);
  });
});

describe('price validation', () => {
  it('accepts well-formed prices', () => {
    expect(validatePrice(typographic)).toEqual([]);
    expect(validatePrice({ type: 'flat', amount: 0, currency: 'jpy' })).toEqual([]);
    expect(validatePrice({ type: 'perUnit', unitAmount: '0.000000000001', currency: 'eur' })).toEqual([]);
    expect(validatePrice({ type: 'graduated', currency: 'usd', tiers: [{ upTo: null, unitAmount: '3', flatAmount: 100 }] })).toEqual([]);
    expect(validatePrice({ type: 'graduated', currency: 'usd', tiers: [{ upTo: 0.5, unitAmount: '1' }, { upTo: null, unitAmount: '2' }] })).toEqual([]);
  });

  it.each<[unknown, string[]]>([
    [null, ['/: a price must be an object']],
    [{ type: 'volume', currency: 'usd' }, ['/type: must be "flat", "perUnit" or "graduated"']],
    [{ type: 'flat', amount: 100, currency: 'USD' }, ['/currency: "USD" must be lower case']],
    [{ type: 'flat', amount: 100, currency: 'xyz' }, ['/currency: "xyz" is not the ISO 4217 code of a country\'s currency']],
    // ISO 4217 codes that are not money: gold, a fund, a unit of account.
    [{ type: 'flat', amount: 100, currency: 'xau' }, ['/currency: "xau" is not the ISO 4217 code of a country\'s currency']],
    [{ type: 'flat', amount: 100, currency: 'bov' }, ['/currency: "bov" is not the ISO 4217 code of a country\'s currency']],
    [{ type: 'flat', amount: 100, currency: 'xdr' }, ['/currency: "xdr" is not the ISO 4217 code of a country\'s currency']],
    [{ type: 'flat', amount: 100 }, ['/currency: must be an ISO 4217 code']],
    [{ type: 'flat', amount: 19.99, currency: 'usd' }, ['/amount: must be an integer number of minor units within ±9007199254740991']],
    [{ type: 'flat', amount: 2 ** 53, currency: 'usd' }, ['/amount: must be an integer number of minor units within ±9007199254740991']],
    [{ type: 'flat', amount: -1, currency: 'usd' }, ['/amount: must not be negative']],
    [{ type: 'perUnit', unitAmount: 0.05, currency: 'usd' }, ['/unitAmount: must be a decimal string']],
    [{ type: 'perUnit', unitAmount: '-0.05', currency: 'usd' }, ['/unitAmount: "-0.05" is not a non-negative decimal string (digits, optionally a point and digits)']],
    [{ type: 'perUnit', unitAmount: '1e3', currency: 'usd' }, ['/unitAmount: "1e3" is not a non-negative decimal string (digits, optionally a point and digits)']],
    [{ type: 'perUnit', unitAmount: '0.0000000000001', currency: 'usd' }, ['/unitAmount: "0.0000000000001" has more than 12 decimal places']],
    [{ type: 'graduated', tiers: [], currency: 'usd' }, ['/tiers: must be a non-empty array']],
    [
      { type: 'graduated', currency: 'usd', tiers: [{ upTo: 10, unitAmount: '1' }, { upTo: 10, unitAmount: '1' }, { upTo: 5, unitAmount: 'x' }] },
      ["/tiers/1/upTo: must be greater than the previous tier's (10)", '/tiers/2/upTo: the last tier must be open (null)', '/tiers/2/unitAmount: "x" is not a non-negative decimal string (digits, optionally a point and digits)'],
    ],
    [
      { type: 'graduated', currency: 'usd', tiers: [{ upTo: null, unitAmount: '1' }, { upTo: 0, unitAmount: '1', flatAmount: 1.5 }, 3, { upTo: null, unitAmount: '1' }] },
      [
        '/tiers/0/upTo: must be a finite number > 0 (only the last tier is open)',
        '/tiers/1/upTo: must be a finite number > 0 (only the last tier is open)',
        '/tiers/1/flatAmount: must be an integer number of minor units within ±9007199254740991',
        '/tiers/2: must be an object',
      ],
    ],
  ])('%j has problems %j', (price, problems) => {
    expect(validatePrice(price)).toEqual(problems);
  });
});

// --- properties -------------------------------------------------------------------------------------------

const digits = (maxLength: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), maxLength });
/** A non-negative decimal string with up to `places` decimal places. */
const decimal = (maxWhole: number, places: number) =>
  fc.tuple(fc.integer({ min: 0, max: maxWhole }), digits(places)).map(([whole, fraction]) => (fraction ? `${whole}.${fraction}` : `${whole}`));
const flatAmount = fc.option(fc.integer({ min: 0, max: 100_000 }), { nil: undefined });

/** Graduated prices with bounds `step` apart at least (integers when step is 1). */
const graduated = (boundStep: number) =>
  fc
    .array(fc.record({ gap: fc.integer({ min: 1, max: 800 }), unitAmount: decimal(5000, 12), flatAmount }), { minLength: 1, maxLength: 6 })
    .map((rows): GraduatedPrice => {
      let upTo = 0;
      const tiers = rows.map(({ gap, unitAmount, flatAmount }, i): Tier => {
        upTo += gap * boundStep;
        const tier = { upTo: i === rows.length - 1 ? null : upTo, unitAmount };
        return flatAmount === undefined ? tier : { ...tier, flatAmount };
      });
      return { type: 'graduated', currency: 'usd', tiers };
    });

const anyPrice: fc.Arbitrary<Price> = fc.oneof(
  fc.integer({ min: 0, max: 10_000_000 }).map((amount): Price => ({ type: 'flat', amount, currency: 'usd' })),
  decimal(5000, 12).map((unitAmount): Price => ({ type: 'perUnit', unitAmount, currency: 'usd' })),
  // Prices that often land exactly on half a minor unit, so ties are exercised.
  fc.constantFrom('0.5', '1.5', '0.25', '0.05').map((unitAmount): Price => ({ type: 'perUnit', unitAmount, currency: 'usd' })),
  graduated(1),
  graduated(0.25),
);
const anyQuantity: fc.Arbitrary<string | number> = fc.oneof(
  decimal(1_000_000, 6),
  fc.integer({ min: 0, max: 1_000_000 }),
  fc.double({ min: 0, max: 1_000_000, noNaN: true }),
);

/** A decimal string with at most 12 places, in 10⁻¹² units, in integer arithmetic: independent of decimal.js. */
function picos(value: string): bigint {
  const [whole, fraction = ''] = value.split('.');
  expect(fraction.length).toBeLessThanOrEqual(12);
  return BigInt(whole!) * 10n ** 12n + BigInt(fraction.padEnd(12, '0'));
}

describe('rating properties', () => {
  it('rates graduated prices as the sum, unit by unit, of each unit’s tier price plus the flat amounts of the tiers reached', () => {
    fc.assert(
      fc.property(graduated(1), fc.integer({ min: 0, max: 3000 }), (price, quantity) => {
        const unitPicos = price.tiers.map((t) => picos(t.unitAmount));
        let expected = 0n;
        const reached = new Set<number>();
        for (let unit = 1, index = 0; unit <= quantity; unit++) {
          while (price.tiers[index]!.upTo !== null && unit > price.tiers[index]!.upTo!) index++;
          expected += unitPicos[index]!;
          reached.add(index);
        }
        for (const index of reached) expected += BigInt(price.tiers[index]!.flatAmount ?? 0) * 10n ** 12n;
        expect(picos(rate(price, quantity).exact)).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('never charges less for more', () => {
    fc.assert(
      fc.property(anyPrice, anyQuantity, anyQuantity, (price, a, b) => {
        const [low, high] = new D(a).lessThanOrEqualTo(b) ? [a, b] : [b, a];
        const [r1, r2] = [rate(price, low), rate(price, high)];
        expect(new D(r1.exact).lessThanOrEqualTo(r2.exact)).toBe(true);
        expect(r1.amount).toBeLessThanOrEqual(r2.amount);
      }),
      { numRuns: 500 },
    );
  });

  it('rounds to an integer within half a minor unit of the exact amount, ties to even', () => {
    fc.assert(
      fc.property(anyPrice, anyQuantity, (price, quantity) => {
        const { amount, exact } = rate(price, quantity);
        expect(Number.isSafeInteger(amount)).toBe(true);
        const error = new D(amount).minus(exact).abs();
        expect(error.lessThanOrEqualTo('0.5')).toBe(true);
        if (error.equals('0.5')) expect(amount % 2).toBe(0);
      }),
      { numRuns: 500 },
    );
  });
});
