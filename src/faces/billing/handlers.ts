/**
 * The `billing` face (docs/contract.md § Payments and billing): prices, subscriptions, the upcoming invoice and the invoice state machine.
 * The flows live beside it in this module (prices, periods, rating lines from usage, invoices, the period closer); this
 * file maps actions to them and reads lists. Everything is confined to the call's (mode, entity).
 */
import type { BillingHandlers } from '../../../generated/server/types.js';
import { rateLines } from './invoice-lines.js';
import { closePeriod, finalizeInvoice, loadInvoice, payInvoice, readInvoice, settleInvoice } from './invoices.js';
import { endOfMinute, period, wholeMinute } from './periods.js';
import { checkedPrice, toPrice, type PricePayload } from './prices.js';
import { toSubscription } from './wire.js';
import { ApiError, invalidField } from '../../core/errors.js';
import { listPage } from '../../core/list-page.js';
import { cancelAtPeriodEnd, getPrices, getSubscription, insertPrice, insertSubscription, listInvoices, listPrices, listSubscriptions } from './store.js';
import type { Mode } from '../../store/schema.js';
import type { BillingSubscriptionTable } from './tables.js';
import { newId } from '../../store/secrets.js';
import { checkCurrency } from '../../core/money.js';
import { paymentsOf, usageOf } from './services.js';

/** How far back a subscription may start: as far back as ingested usage is accepted (docs/contract.md § Usage). */
const BACKDATE_MS = 35 * 86_400_000;

const partition = (ctx: { mode: Mode; entityId: string }) => ({ mode: ctx.mode, entityId: ctx.entityId });

const invalid = (param: string, message: string) => invalidField(param, message, 'billing');

async function loadSubscription(ctx: { mode: Mode; entityId: string; db: Parameters<typeof getSubscription>[0] }, id: string, param: string): Promise<BillingSubscriptionTable> {
  const row = await getSubscription(ctx.db, partition(ctx), id);
  if (!row) throw new ApiError('resource_not_found', `No subscription ${id}.`, { param });
  return row;
}

export const handlers: BillingHandlers = {
  async createPrice(validated, ctx) {
    const payload: PricePayload = validated;
    checkCurrency(payload.currency, '/payload/currency');
    // The calls' cost is summed in the platform's currency: a price of it in another would be an exchange rate.
    if (payload.usage?.source === 'cost' && payload.currency !== ctx.catalogue.platform.currency) {
      throw invalid('/payload/currency', `a price of the calls' cost is in the platform's currency (${ctx.catalogue.platform.currency})`);
    }
    const { currency, definition } = checkedPrice(payload);
    const row = {
      mode: ctx.mode,
      entity_id: ctx.entityId,
      id: newId('price'),
      currency,
      nickname: payload.nickname ?? null,
      definition: JSON.stringify(definition),
      created_at: new Date().toISOString(),
    };
    await insertPrice(ctx.db, row);
    return toPrice(row);
  },

  async getPrice(payload, ctx) {
    const [row] = await getPrices(ctx.db, partition(ctx), [payload.id]);
    if (!row) throw new ApiError('resource_not_found', `No price ${payload.id}.`, { param: '/payload/id' });
    return toPrice(row);
  },

  async listPrices(payload, ctx) {
    const limit = payload.limit ?? 20;
    return listPage(await listPrices(ctx.db, partition(ctx), limit, payload.startingAfter), limit, toPrice);
  },

  async subscribe(payload, ctx) {
    const p = partition(ctx);
    if (!(await paymentsOf(ctx).customer(ctx, payload.customer))) throw new ApiError('resource_not_found', `No customer ${payload.customer}.`, { param: '/payload/customer' });
    const prices = await getPrices(ctx.db, p, payload.prices);
    payload.prices.forEach((id, i) => {
      if (!prices.some((row) => row.id === id)) throw new ApiError('resource_not_found', `No price ${id}.`, { param: `/payload/prices/${i}` });
    });
    const currency = prices.find((row) => row.id === payload.prices[0])!.currency;
    const other = payload.prices.findIndex((id) => prices.find((row) => row.id === id)!.currency !== currency);
    if (other >= 0) throw invalid(`/payload/prices/${other}`, `every price of a subscription is in one currency (the first is in ${currency})`);
    const now = Date.now();
    let start = wholeMinute(now);
    if (payload.backdateStartDate !== undefined) {
      const asked = Date.parse(payload.backdateStartDate);
      if (!(asked <= now && asked >= now - BACKDATE_MS)) throw invalid('/payload/backdateStartDate', 'must be in the past, at most 35 days back');
      start = wholeMinute(asked);
    }
    const interval = payload.interval ?? 'month';
    const intervalCount = payload.intervalCount ?? 1;
    const startDate = new Date(start).toISOString();
    const first = period(startDate, interval, intervalCount, 0);
    const row: BillingSubscriptionTable = {
      mode: ctx.mode,
      entity_id: ctx.entityId,
      id: newId('sub'),
      customer_id: payload.customer,
      price_ids: JSON.stringify(payload.prices),
      currency,
      interval,
      interval_count: intervalCount,
      start_date: startDate,
      periods_closed: 0,
      current_period_start: first.start,
      current_period_end: first.end,
      status: 'active',
      cancel_at_period_end: 0,
      canceled_at: null,
      latest_invoice_id: null,
      metadata: payload.metadata ? JSON.stringify(payload.metadata) : null,
      created_at: new Date(now).toISOString(),
    };
    await insertSubscription(ctx.db, row);
    const subscription = toSubscription(row);
    ctx.emit('billing.subscription.created', subscription);
    return subscription;
  },

  async getSubscription(payload, ctx) {
    return toSubscription(await loadSubscription(ctx, payload.id, '/payload/id'));
  },

  async listSubscriptions(payload, ctx) {
    const limit = payload.limit ?? 20;
    const filter = { ...(payload.customer ? { customer: payload.customer } : {}), ...(payload.status ? { status: payload.status } : {}), ...(payload.startingAfter ? { startingAfter: payload.startingAfter } : {}) };
    return listPage(await listSubscriptions(ctx.db, partition(ctx), limit, filter), limit, toSubscription);
  },

  async cancelSubscription(payload, ctx) {
    const row = await loadSubscription(ctx, payload.id, '/payload/id');
    const refuse = () => new ApiError('subscription_state_invalid', `Subscription ${row.id} is canceled already.`, { details: { status: 'canceled' } });
    if (row.status !== 'active') throw refuse();
    if (payload.atPeriodEnd) {
      if (!(await cancelAtPeriodEnd(ctx.db, partition(ctx), row.id))) throw refuse();
      const subscription = toSubscription((await getSubscription(ctx.db, partition(ctx), row.id))!);
      ctx.emit('billing.subscription.updated', subscription);
      return subscription;
    }
    const emit = (type: 'billing.invoice.created' | 'billing.subscription.canceled' | 'billing.subscription.updated', data: unknown) => ctx.emit(type, data as never);
    // Periods already over (the closer has not come round to them yet) are invoiced as they would have been.
    const now = Date.now();
    let current: BillingSubscriptionTable | undefined = row;
    while (current && Date.parse(current.current_period_end) <= now) current = await closePeriod(ctx.db, partition(ctx), usageOf(ctx), current, emit, { now });
    const closed = current && (await closePeriod(ctx.db, partition(ctx), usageOf(ctx), current, emit, { cancelNow: true, now }));
    if (!closed) throw refuse();
    return toSubscription(closed);
  },

  async upcomingInvoice(payload, ctx) {
    const row = await loadSubscription(ctx, payload.subscription, '/payload/subscription');
    if (row.status !== 'active') throw new ApiError('subscription_state_invalid', `Subscription ${row.id} is canceled: it has no upcoming invoice.`, { details: { status: row.status } });
    const usageTo = new Date(Math.min(endOfMinute(Date.now()), Date.parse(row.current_period_end))).toISOString();
    const { lines, total } = await rateLines(ctx.db, partition(ctx), usageOf(ctx), row, { start: row.current_period_start, end: row.current_period_end, usageTo });
    return { subscription: row.id, customer: row.customer_id, currency: row.currency, periodStart: row.current_period_start, periodEnd: row.current_period_end, lines, total };
  },

  async getInvoice(payload, ctx) {
    return readInvoice(ctx.db, partition(ctx), usageOf(ctx), await loadInvoice(ctx.db, partition(ctx), payload.id));
  },

  async listInvoices(payload, ctx) {
    const limit = payload.limit ?? 20;
    const filter = {
      ...(payload.subscription ? { subscription: payload.subscription } : {}),
      ...(payload.status ? { status: payload.status } : {}),
      ...(payload.startingAfter ? { startingAfter: payload.startingAfter } : {}),
    };
    const { items, hasMore } = listPage(await listInvoices(ctx.db, partition(ctx), limit, filter), limit, (row) => readInvoice(ctx.db, partition(ctx), usageOf(ctx), row));
    // A draft's lines are rated as it is read.
    return { items: await Promise.all(items), hasMore };
  },

  async finalizeInvoice(payload, ctx) {
    const row = await loadInvoice(ctx.db, partition(ctx), payload.id);
    const invoice = await finalizeInvoice(ctx.db, partition(ctx), usageOf(ctx), row, (type, data) => ctx.emit(type, data as never));
    if (!invoice) {
      const now = await loadInvoice(ctx.db, partition(ctx), payload.id);
      throw new ApiError('invoice_state_invalid', `Invoice ${now.id} is ${now.status}; only a draft can be finalized.`, { details: { status: now.status } });
    }
    return invoice;
  },

  voidInvoice: (payload, ctx) => settleInvoice(ctx.db, partition(ctx), payload.id, 'void', (type, data) => ctx.emit(type as never, data as never)),
  markInvoiceUncollectible: (payload, ctx) => settleInvoice(ctx.db, partition(ctx), payload.id, 'uncollectible', (type, data) => ctx.emit(type as never, data as never)),
  payInvoice: (payload, ctx) => payInvoice(ctx, payload.id, payload.paymentMethod),
};
