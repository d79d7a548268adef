/**
 * Exact decimal sums in both stores (usage units and meter values, docs/faces/usage.md § Usage analytics). PostgreSQL keeps
 * such columns as `numeric` and adds them with `+` and `sum`, exactly. SQLite has no decimal type and would add
 * them as floats, so there they are TEXT (a canonical decimal such as `"0.3"`) added by `decimal_add` and
 * `decimal_sum`, functions every SQLite connection of the store defines (sqlite/decimal-functions.worker.mjs).
 */
import { Decimal } from 'decimal.js';
import { PostgresAdapter, sql, type Expression, type Kysely, type RawBuilder } from 'kysely';
import { addDecimalTexts } from './sqlite/decimal-functions.worker.mjs';

/** Adds exactly: at this precision decimal.js never rounds a sum of the values kept here. */
export const Exact = Decimal.clone({ precision: 1e9, rounding: Decimal.ROUND_HALF_EVEN });
export type Exact = InstanceType<typeof Exact>;

/**
 * A decimal as the stores keep it and the API writes it: no exponent, no trailing zeros, no `-0`. A number is
 * read as the shortest decimal that JavaScript reads back as the same number (`0.1` is exactly 0.1); `places`
 * rounds it half-even.
 */
export function decimalText(value: number | string | Exact, places?: number): string {
  // Most values are integers, which print as their digits (-0 as "0") and need no rounding.
  if (typeof value === 'number' && Number.isInteger(value) && Math.abs(value) < 1e21) return String(value);
  let exact = new Exact(value);
  if (places !== undefined) exact = exact.toDecimalPlaces(places, Decimal.ROUND_HALF_EVEN);
  return exact.isZero() ? '0' : exact.toFixed();
}

/** Decimal places a meter value is kept to (a billionth, as costs), rounded half-even beyond. */
export const METER_PLACES = 9;

/** Quotients to round: enough significant digits that the one rounding to `places` is the only one. */
const Quotient = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_HALF_EVEN });

/** `dividend ÷ divisor` as decimal text to `places` places, rounded half-even (a quotient need not end). */
export const decimalQuotient = (dividend: Exact, divisor: number, places: number): string =>
  decimalText(new Quotient(dividend.toFixed()).dividedBy(divisor).toFixed(), places);

/** The exact sum of decimal texts, as canonical text: the addition the SQLite functions make. */
export const addDecimals = (a: string, b: string): string => addDecimalTexts(a, b);

// Any Kysely: migrations have an untyped one. (storeKind in open.ts asks the same, but open.ts imports the
// migrations, which use this module.)
export const onPostgres = (db: Kysely<any>) => db.getExecutor().adapter instanceof PostgresAdapter;

/** The column type of an exact decimal, for migrations. */
export const decimalColumnType = (db: Kysely<any>) => (onPostgres(db) ? sql`numeric` : sql`text`);

/** `a + b`, exactly, as a column update (`excluded.value` and the row's own). */
export function decimalAdd(db: Kysely<any>, a: Expression<unknown>, b: Expression<unknown>): RawBuilder<string> {
  return onPostgres(db) ? sql<string>`${a} + ${b}` : sql<string>`decimal_add(${a}, ${b})`;
}

/**
 * `sum(column)`, exactly (null over no rows, as `sum`): a numeric on PostgreSQL, which its client answers as
 * decimal text; decimal text on SQLite. Read it through decimalText for one spelling.
 */
export function decimalSum(db: Kysely<any>, column: Expression<unknown>): RawBuilder<string | null> {
  return onPostgres(db) ? sql<string | null>`sum(${column})` : sql<string | null>`decimal_sum(${column})`;
}
