/**
 * Rating (docs/contract.md § Payments and billing): the amount one price charges for one period's quantity, for an invoice line. Prices are
 * flat, per unit or graduated (Stripe's tiers). Unit amounts are decimal strings of minor units (sub-cent
 * allowed, at most 12 places), flat amounts integer minor units, quantities may be fractional (metered GB).
 * Everything is summed exactly with decimal.js and rounded once, at the end, half-even, to integer minor
 * units; the unrounded sum is kept as `exact` so an invoice line can show and recompute it. Pure: no I/O but
 * the ISO 4217 list, read once.
 */
import { Decimal } from 'decimal.js';
import { moneyDigits } from '../../core/currencies.js';

/** A fee per period, whatever the quantity. */
export interface FlatPrice {
  readonly type: 'flat';
  /** Integer minor units. */
  readonly amount: number;
  readonly currency: string;
}

export interface PerUnitPrice {
  readonly type: 'perUnit';
  /** Minor units per unit, as a decimal string (`"0.05"` is a twentieth of a cent). */
  readonly unitAmount: string;
  readonly currency: string;
}

export interface Tier {
  /** Inclusive upper bound of the tier's quantity; `null` on the last tier, which is open. */
  readonly upTo: number | null;
  /** Minor units per unit that falls in this tier, as a decimal string. */
  readonly unitAmount: string;
  /** Integer minor units added once when the quantity reaches into this tier. */
  readonly flatAmount?: number;
}

/** Stripe's graduated tiers: each unit is priced by the tier it falls in. */
export interface GraduatedPrice {
  readonly type: 'graduated';
  readonly tiers: readonly Tier[];
  readonly currency: string;
}

export type Price = FlatPrice | PerUnitPrice | GraduatedPrice;

export interface RatedTier {
  readonly upTo: number | null;
  /** The part of the quantity that falls in this tier (`"0"` when the quantity does not reach it). */
  readonly quantity: string;
  readonly unitAmount: string;
  /** The flat amount charged for this tier: the tier's own when reached, 0 otherwise. */
  readonly flatAmount: number;
  /** quantity × unitAmount + flatAmount, unrounded. */
  readonly amount: string;
}

export interface Rating {
  /** Integer minor units: `exact` rounded half-even. */
  readonly amount: number;
  /** The unrounded amount in minor units, as a decimal string. */
  readonly exact: string;
  /** Graduated prices only: one row per tier of the price, in order. */
  readonly tiers?: readonly RatedTier[];
}

/** At most 12 decimal places, as Stripe's `unit_amount_decimal`; no sign, no exponent. */
const MAX_PLACES = 12;
const DECIMAL = /^\d+(?:\.(\d+))?$/;

// Every operation below is a sum, a product, a min or a difference, which decimal.js computes exactly and then
// rounds to `precision` significant digits; at the maximum precision that rounding never happens, so the
// only rounding of a rating is the explicit one at the end.
const Exact = Decimal.clone({ precision: 1e9, rounding: Decimal.ROUND_HALF_EVEN });
type Exact = InstanceType<typeof Exact>;

/** Problems with a price, each `<JSON pointer>: <message>`; empty when the price can be rated. */
export function validatePrice(price: unknown): string[] {
  const problems: string[] = [];
  if (!isRecord(price)) return ['/: a price must be an object'];
  checkCurrency(price.currency, problems);
  switch (price.type) {
    case 'flat':
      checkMinorUnits(price.amount, '/amount', problems, true);
      break;
    case 'perUnit':
      checkUnitAmount(price.unitAmount, '/unitAmount', problems);
      break;
    case 'graduated':
      checkTiers(price.tiers, problems);
      break;
    default:
      problems.push(`/type: must be "flat", "perUnit" or "graduated"`);
  }
  return problems;
}

/**
 * Rates `quantity` (≥ 0; a decimal string, or a number taken as the decimal JavaScript prints for it) at
 * `price`. Throws a RangeError for an invalid price or quantity, or when the amount is past
 * Number.MAX_SAFE_INTEGER minor units (it could not be an exact `number`).
 */
export function rate(price: Price, quantity: string | number): Rating {
  const problems = validatePrice(price);
  if (problems.length > 0) throw new RangeError(`Invalid price: ${problems.join('; ')}.`);
  const q = parseQuantity(quantity);
  switch (price.type) {
    case 'flat':
      // A period's fee: the quantity (the period's usage, or 1) does not change it.
      return rounded(new Exact(price.amount));
    case 'perUnit':
      return rounded(q.times(price.unitAmount));
    case 'graduated': {
      const tiers: RatedTier[] = [];
      let total = new Exact(0);
      let lower = new Exact(0);
      for (const tier of price.tiers) {
        const upper = tier.upTo === null ? q : Exact.min(q, tier.upTo);
        // Bounds are inclusive (Stripe's `up_to`), so a quantity exactly on a bound does not reach the next
        // tier, and a fractional quantity past it does (5.5 units put 0.5 in the next tier).
        const inTier = Exact.max(upper.minus(lower), 0);
        // A tier is reached when some of the quantity falls in it: zero usage reaches none and charges
        // nothing, so a fee owed whatever the usage belongs in a flat price.
        const reached = inTier.greaterThan(0);
        const flatAmount = reached ? (tier.flatAmount ?? 0) : 0;
        const amount = inTier.times(tier.unitAmount).plus(flatAmount);
        total = total.plus(amount);
        tiers.push({ upTo: tier.upTo, quantity: inTier.toFixed(), unitAmount: tier.unitAmount, flatAmount, amount: amount.toFixed() });
        if (tier.upTo !== null) lower = new Exact(tier.upTo);
      }
      return { ...rounded(total), tiers };
    }
  }
}

function rounded(exact: Exact): Rating {
  // Once per line, half-even: ties go to the even cent, so rounding errors cancel over many lines instead of
  // always favouring one side.
  const whole = exact.toDecimalPlaces(0, Decimal.ROUND_HALF_EVEN);
  if (whole.greaterThan(Number.MAX_SAFE_INTEGER)) throw new RangeError(`The amount ${exact.toFixed()} is too large to be exact in minor units.`);
  return { amount: whole.toNumber(), exact: exact.toFixed() };
}

function parseQuantity(quantity: string | number): Exact {
  if (typeof quantity === 'number') {
    if (!Number.isFinite(quantity) || quantity < 0) throw new RangeError(`The quantity ${quantity} must be a finite number ≥ 0.`);
    return new Exact(quantity === 0 ? 0 : quantity); // -0 passes the check; it would print as "-0"
  }
  if (typeof quantity !== 'string' || !DECIMAL.test(quantity)) throw new RangeError(`The quantity ${JSON.stringify(quantity)} must be a decimal string ≥ 0.`);
  return new Exact(quantity);
}

function checkCurrency(currency: unknown, problems: string[]): void {
  if (typeof currency !== 'string') problems.push('/currency: must be an ISO 4217 code');
  else if (currency !== currency.toLowerCase()) problems.push(`/currency: "${currency}" must be lower case`);
  else if (moneyDigits(currency) === undefined) problems.push(`/currency: "${currency}" is not the ISO 4217 code of a country's currency`);
}

function checkMinorUnits(value: unknown, pointer: string, problems: string[], required: boolean): void {
  if (value === undefined && !required) return;
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) problems.push(`${pointer}: must be an integer number of minor units within ±${Number.MAX_SAFE_INTEGER}`);
  else if (value < 0) problems.push(`${pointer}: must not be negative`);
}

function checkUnitAmount(value: unknown, pointer: string, problems: string[]): void {
  // A number is refused even when it looks right: 0.1 as a float is not 0.1, and unit prices must be exact.
  if (typeof value !== 'string') {
    problems.push(`${pointer}: must be a decimal string`);
    return;
  }
  const match = DECIMAL.exec(value);
  if (!match) problems.push(`${pointer}: "${value}" is not a non-negative decimal string (digits, optionally a point and digits)`);
  else if ((match[1]?.length ?? 0) > MAX_PLACES) problems.push(`${pointer}: "${value}" has more than ${MAX_PLACES} decimal places`);
}

function checkTiers(tiers: unknown, problems: string[]): void {
  if (!Array.isArray(tiers) || tiers.length === 0) {
    problems.push('/tiers: must be a non-empty array');
    return;
  }
  let previous: number | undefined;
  tiers.forEach((tier: unknown, i) => {
    const at = `/tiers/${i}`;
    if (!isRecord(tier)) {
      problems.push(`${at}: must be an object`);
      return;
    }
    const last = i === tiers.length - 1;
    const { upTo } = tier;
    if (last) {
      if (upTo !== null) problems.push(`${at}/upTo: the last tier must be open (null)`);
    } else if (typeof upTo !== 'number' || !Number.isFinite(upTo) || upTo <= 0) {
      problems.push(`${at}/upTo: must be a finite number > 0 (only the last tier is open)`);
    } else {
      if (previous !== undefined && upTo <= previous) problems.push(`${at}/upTo: must be greater than the previous tier's (${previous})`);
      previous = upTo;
    }
    checkUnitAmount(tier.unitAmount, `${at}/unitAmount`, problems);
    checkMinorUnits(tier.flatAmount, `${at}/flatAmount`, problems, false);
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
