/**
 * Prices of the billing face: checked when made (the rating rules of rating.ts, and which fields go with
 * which type and usage source), then kept as made; a price never changes. A bad price is `payload_invalid`
 * listing every problem at its field.
 */
import type { BillingCreatePricePayload, BillingPrice, BillingPriceTier, BillingPriceUsage, BillingUnitAmount } from '../../../generated/server/types.js';
import { ApiError } from '../../core/errors.js';
import type { BillingPriceTable } from './tables.js';
import { validatePrice, type Price } from './rating.js';

/** A price as kept: what rating needs, and what its quantity counts. */
export type PriceDefinition = Omit<Price, 'currency'> & { usage?: BillingPriceUsage };

/** A price as rating.ts rates it, with its usage source. */
export interface RatablePrice {
  id: string;
  nickname: string | null;
  price: Price;
  usage: BillingPriceUsage | undefined;
}

/**
 * A price payload with every type's fields optional: the schema's per-type branches already refuse a payload
 * without its type's fields or with another's, and the checks below still read them all, so a rule is kept
 * here whatever the validated version's schema says.
 */
export type PricePayload = Pick<BillingCreatePricePayload, 'nickname' | 'currency' | 'type'> & {
  amount?: number;
  unitAmount?: BillingUnitAmount;
  tiers?: BillingPriceTier[];
  usage?: BillingPriceUsage;
};

/** The fields each type takes, beside `currency`, `type`, `nickname` and `usage`. */
const FIELDS = { flat: 'amount', perUnit: 'unitAmount', graduated: 'tiers' } as const;

/** The problems of a price payload, each `[pointer under /payload, message]`. */
function problemsOf(payload: PricePayload): [string, string][] {
  const problems: [string, string][] = validatePrice(payload).map((p) => {
    const at = p.indexOf(': ');
    return [p.slice(0, at), p.slice(at + 2)];
  });
  for (const [type, field] of Object.entries(FIELDS)) {
    if (type !== payload.type && payload[field] !== undefined) problems.push([`/${field}`, `is for ${type} prices, not ${payload.type}`]);
  }
  const { usage } = payload;
  if (payload.type === 'flat' && usage) problems.push(['/usage', 'a flat price charges per period and counts no usage']);
  if (payload.type !== 'flat' && !usage) problems.push(['/usage', `a ${payload.type} price needs the usage it counts: {source: "cost"} or {source: "meter", meterType}`]);
  return problems;
}

/** The price to keep, or `payload_invalid` with every problem. */
export function checkedPrice(payload: PricePayload): { currency: string; definition: PriceDefinition } {
  const problems = problemsOf(payload);
  if (problems.length > 0) {
    const errors = problems.map(([pointer, message]) => ({ param: `/payload${pointer === '/' ? '' : pointer}`, message, keyword: 'price' }));
    throw new ApiError('payload_invalid', errors.map((e) => `${e.param}: ${e.message}`).join('; ') + '.', { param: errors[0]!.param, details: { errors } });
  }
  const { type, amount, unitAmount, tiers, usage } = payload;
  const price = type === 'flat' ? { type, amount: amount! } : type === 'perUnit' ? { type, unitAmount: unitAmount! } : { type, tiers: tiers! };
  return { currency: payload.currency, definition: { ...price, ...(usage ? { usage } : {}) } as PriceDefinition };
}

export function ratable(row: BillingPriceTable): RatablePrice {
  const { usage, ...price } = JSON.parse(row.definition) as PriceDefinition;
  return { id: row.id, nickname: row.nickname, price: { ...price, currency: row.currency } as Price, usage };
}

export function toPrice(row: BillingPriceTable): BillingPrice {
  return {
    id: row.id,
    ...(row.nickname !== null ? { nickname: row.nickname } : {}),
    currency: row.currency,
    ...(JSON.parse(row.definition) as PriceDefinition),
    createdAt: row.created_at,
  } as BillingPrice;
}
