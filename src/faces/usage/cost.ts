/**
 * The cost of one call (docs/contract.md § Usage): the action's `perCall` price plus each `perUnit` price times the units
 * its handler reported, in the platform's currency. Prices are decimal strings (the generator keeps them as the
 * face file writes them) and are turned once into whole nano-units (10⁻⁹ of the currency) with decimal.js; a
 * call's cost is then integer arithmetic, exact and cheap, and written as a decimal string. No float touches
 * money. The generator already refuses a price finer than a nano-unit; the check here stays because a Price
 * can also come from elsewhere (tests, billing), and it runs once per price.
 */
import { Decimal } from 'decimal.js';

export interface Price {
  readonly perCall: string;
  readonly perUnit: Readonly<Record<string, string>>;
}

interface NanoPrice {
  perCall: bigint;
  perUnit: Map<string, bigint>;
}

const NANOS = new Decimal(1_000_000_000);
const prices = new WeakMap<Price, NanoPrice>();

function nanos(amount: string): bigint {
  const scaled = new Decimal(amount).times(NANOS);
  if (!scaled.isInteger()) throw new Error(`The price ${amount} is finer than 10⁻⁹ of the currency.`);
  return BigInt(scaled.toFixed(0));
}

function nanoPrice(price: Price): NanoPrice {
  let found = prices.get(price);
  if (!found) {
    found = { perCall: nanos(price.perCall), perUnit: new Map(Object.entries(price.perUnit).map(([unit, each]) => [unit, nanos(each)])) };
    prices.set(price, found);
  }
  return found;
}

/** The cost in nano-units; a replay costs nothing. Fractional units are priced exactly, through decimal.js. */
export function callCostNanos(price: Price, units: Readonly<Record<string, number>>, replayed: boolean): bigint {
  if (replayed) return 0n;
  const { perCall, perUnit } = nanoPrice(price);
  let cost = perCall;
  for (const unit in units) {
    const each = perUnit.get(unit);
    const amount = units[unit]!;
    if (each === undefined) continue;
    cost += Number.isInteger(amount) ? each * BigInt(amount) : BigInt(new Decimal(each.toString()).times(amount).toFixed(0, Decimal.ROUND_HALF_EVEN));
  }
  return cost;
}

/** Nano-units as a decimal string (`1500000` → `"0.0015"`). */
export function nanosToDecimal(value: bigint): string {
  const negative = value < 0n;
  const abs = negative ? -value : value;
  const whole = abs / 1_000_000_000n;
  const fraction = (abs % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}
