/**
 * The lines of a subscription's invoice for one period: a line per price, rated from the period's usage
 * (rating.ts), then the late usage of earlier periods: what a period's usage query gives now beyond what the
 * subscription's invoices (void ones included: a voided amount is not asked for again) billed for it. It is
 * priced at the margin (the whole quantity's amount minus the amount of what was billed), so graduated tiers
 * carry on where the invoice left them.
 *
 * Which periods can have any: meter events are accepted up to 35 days back, so usage that arrived since the
 * subscription's last finalization is for a period that ended after that finalization less 35 days. Earlier
 * arrivals were billed by that finalization or one before it, by the same rule.
 */
import { Decimal } from 'decimal.js';
import type { BillingInvoiceLine } from '../../../generated/server/types.js';
import { ApiError } from '../../core/errors.js';
import type { Partition } from '../../store/partition.js';
import { finalizedInvoicesSince, getPrices, lastFinalizedAt } from './store.js';
import type { Db } from '../../store/schema.js';
import type { BillingSubscriptionTable } from './tables.js';
import { ratable, type RatablePrice } from './prices.js';
import { rate, type Rating } from './rating.js';
import { usageQuantities } from './usage-quantity.js';
import type { UsageService } from '../usage/service.js';

/** Beyond the 35 days, for events accepted while the last finalization was running. */
const LATE_MARGIN_MS = 3_600_000;
/** Quantities add up exactly: at this precision decimal.js never rounds a sum. */
const Exact = Decimal.clone({ precision: 1e9 });

export interface RatedLines {
  lines: BillingInvoiceLine[];
  total: number;
}

function describe(price: RatablePrice): string {
  if (price.nickname) return price.nickname;
  if (!price.usage) return 'Subscription fee';
  return price.usage.source === 'cost' ? 'API usage' : `Metered ${price.usage.meterType}`;
}

/** Rates a line; an amount past what minor units can hold exactly is the caller's 400, not a fault. */
function rated(price: RatablePrice, quantity: string | number): Rating {
  try {
    return rate(price.price, quantity);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new ApiError('amount_too_large', `Price ${price.id} over a quantity of ${quantity} comes to more than can be billed.`, { details: { price: price.id, quantity: String(quantity) } });
  }
}

/** The usage query of each line billed so far that can still grow, with what its lines billed in all. */
async function billedQueries(db: Db, p: Partition, usage: UsageService, subscriptionId: string): Promise<{ line: BillingInvoiceLine; quantity: InstanceType<typeof Exact> }[]> {
  const last = await lastFinalizedAt(db, p, subscriptionId);
  if (last === undefined) return [];
  const since = new Date(Date.parse(last) - usage.meterLateMs - LATE_MARGIN_MS).toISOString();
  const billed = new Map<string, { line: BillingInvoiceLine | undefined; quantity: InstanceType<typeof Exact> }>();
  for (const invoice of await finalizedInvoicesSince(db, p, subscriptionId, since)) {
    for (const line of JSON.parse(invoice.lines ?? '[]') as BillingInvoiceLine[]) {
      if (!line.usage || line.periodEnd <= since) continue;
      const key = JSON.stringify([line.price, line.usage.source, line.usage.meterType ?? null, line.usage.from, line.usage.to]);
      const found = billed.get(key) ?? { line: undefined, quantity: new Exact(0) };
      found.quantity = found.quantity.plus(line.quantity);
      // The period's own line is the one its late lines follow (they share its query).
      if (!line.late) found.line = line;
      billed.set(key, found);
    }
  }
  return [...billed.values()].filter((b): b is { line: BillingInvoiceLine; quantity: InstanceType<typeof Exact> } => b.line !== undefined);
}

/**
 * Rates the period [start, end) of `subscription`, counting usage up to `usageTo` (the period's end, or now
 * for the current period), and adds the late usage of earlier periods.
 */
export async function rateLines(db: Db, p: Partition, usage: UsageService, subscription: BillingSubscriptionTable, period: { start: string; end: string; usageTo: string }): Promise<RatedLines> {
  const billed = await billedQueries(db, p, usage, subscription.id);
  const own = JSON.parse(subscription.price_ids) as string[];
  const prices = new Map((await getPrices(db, p, [...new Set([...own, ...billed.map((b) => b.line.price)])])).map((row) => [row.id, ratable(row)]));
  const quantities = usageQuantities(db, p, usage);
  const lines: BillingInvoiceLine[] = [];

  for (const id of own) {
    const price = prices.get(id)!;
    const common = { price: id, description: describe(price), periodStart: period.start, periodEnd: period.end };
    if (!price.usage) {
      const rating = rated(price, 1);
      lines.push({ ...common, quantity: '1', amount: rating.amount, exactAmount: rating.exact });
      continue;
    }
    const quantity = await quantities(price.usage, period.start, period.usageTo);
    const rating = rated(price, quantity);
    lines.push({
      ...common,
      quantity,
      amount: rating.amount,
      exactAmount: rating.exact,
      usage: { ...price.usage, from: period.start, to: period.usageTo, quantity },
      ...(rating.tiers ? { tiers: [...rating.tiers] } : {}),
    });
  }

  for (const { line, quantity: already } of billed) {
    const price = prices.get(line.price)!;
    const usage = line.usage!;
    const current = new Exact(await quantities(usage, usage.from, usage.to));
    if (!current.greaterThan(already)) continue;
    const whole = rated(price, current.toFixed());
    const before = rated(price, already.toFixed());
    lines.push({
      price: line.price,
      description: `${describe(price)}: late usage of ${line.periodStart.slice(0, 10)} to ${line.periodEnd.slice(0, 10)}`,
      periodStart: line.periodStart,
      periodEnd: line.periodEnd,
      late: true,
      quantity: current.minus(already).toFixed(),
      amount: whole.amount - before.amount,
      exactAmount: new Exact(whole.exact).minus(before.exact).toFixed(),
      usage: { ...usage, quantity: current.toFixed() },
    });
  }
  const total = lines.reduce((sum, line) => sum + line.amount, 0);
  if (!Number.isSafeInteger(total)) throw new ApiError('amount_too_large', `The invoice comes to more than can be billed (${total} minor units).`);
  return { lines, total };
}
