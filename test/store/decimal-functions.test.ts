/**
 * The exact decimal addition of the embedded store's SQL functions (decimal_add, decimal_sum): table cases at
 * its edges, the same answers as decimal.js for any decimals, and the functions on a real SQLite connection.
 */
import SQLite from 'better-sqlite3';
import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDecimalTexts, defineDecimalFunctions } from '../../src/store/sqlite/decimal-functions.worker.mjs';

describe('exact decimal addition', () => {
  it.each([
    ['0.1', '0.2', '0.3'],
    ['999999999999999', '9999999999999990', '10999999999999989'],
    ['1.25', '-1.25', '0'],
    ['-0.5', '0.25', '-0.25'],
    ['0.000000001', '2', '2.000000001'],
    ['10', '-0.0', '10'],
    // Numbers, as a float column hands them over: their shortest decimal, exponent form included.
    [0.1, 1e-7, '0.1000001'],
    [1e21, '1', '1000000000000000000001'],
    [0.30000000000000004, '0', '0.30000000000000004'],
  ] as const)('%s + %s = %s', (a, b, sum) => {
    expect(addDecimalTexts(a, b)).toBe(sum);
  });

  it('answers what decimal.js answers, in canonical text', () => {
    // Enough digits that decimal.js rounds none of these.
    const Wide = Decimal.clone({ precision: 100 });
    const decimal = fc.tuple(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.integer({ min: 0, max: 20 })).map(([digits, places]) => new Wide(digits.toString()).dividedBy(new Wide(10).pow(places)).toFixed());
    fc.assert(
      fc.property(decimal, decimal, (a, b) => {
        const sum = new Wide(a).plus(b);
        expect(addDecimalTexts(a, b)).toBe(sum.isZero() ? '0' : sum.toFixed());
      }),
    );
  });

  it('adds integers of up to fifteen digits, which it adds as numbers, as exactly', () => {
    const integer = fc.bigInt({ min: -(10n ** 15n) + 1n, max: 10n ** 15n - 1n }).map(String);
    fc.assert(
      fc.property(integer, integer, (a, b) => {
        expect(addDecimalTexts(a, b)).toBe(String(BigInt(a) + BigInt(b)));
      }),
    );
    expect(addDecimalTexts('-999999999999999', '-999999999999999')).toBe('-1999999999999998');
  });

  it('adds up a column exactly in SQL, NULL passing through as for sum', () => {
    const db = new SQLite(':memory:');
    defineDecimalFunctions(db);
    db.exec("create table t (g text, v text); insert into t values ('a', '0.1'), ('a', '0.2'), ('a', null), ('b', null)");
    expect(db.prepare('select g, decimal_sum(v) as s from t group by g order by g').all()).toEqual([{ g: 'a', s: '0.3' }, { g: 'b', s: null }]);
    expect(db.prepare("select decimal_add('0.1', 0.2) as s, decimal_add(null, '1') as n").get()).toEqual({ s: '0.3', n: null });
    db.close();
  });
});
