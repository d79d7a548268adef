/**
 * The billing face where money is easiest to get wrong: a payment whose answer is lost and tried again asks
 * the processor the same question (one charge); a voided invoice's usage is not asked for again; a close
 * from a stale read loses to a cancellation made meanwhile; cancelling an overdue subscription invoices the
 * periods already over; amounts too large to bill are 400s that hold up neither a period's close nor other
 * drafts; a price of the calls' cost is in the platform's currency.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closePeriod } from '../../src/faces/billing/invoices.js';
import { PeriodCloser } from '../../src/faces/billing/period-closer.js';
import { sandboxProcessor } from '../../src/providers/payments/sandbox.js';
import type { PaymentProcessor } from '../../src/providers/payments/processor.js';
import { getSubscription } from '../../src/faces/billing/store.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { usageTotals } from '../../src/faces/usage/totals.js';

const VISA = { card: { number: '4242424242424242', expMonth: 12, expYear: 2035 } };
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The sandbox, but the answer of its first confirmation is lost after it charged; every key it was asked under. */
const keys: string[] = [];
let lose = 0;
const lossy: PaymentProcessor = {
  ...sandboxProcessor,
  async confirm(input) {
    keys.push(input.idempotencyKey ?? '');
    const answer = await sandboxProcessor.confirm(input);
    if (lose > 0) {
      lose--;
      throw new Error('connection reset after the charge');
    }
    return answer;
  },
};

let server: TestServer;
let closer: PeriodCloser;
beforeAll(async () => {
  server = await startServer({ billing: { closer: false }, payments: { test: lossy } });
  closer = new PeriodCloser(server.db, { graceMs: 0, intervalMs: 60_000, apiVersion: () => '2026-09-01', usage: () => usageTotals });
});
afterAll(() => server?.close());

let entities = 0;
/** A fresh entity with a customer, a flat fee of 500 and a token meter at 1 cent each. */
async function account() {
  const headers = { 'x-entity-id': `edge-${entities++}` };
  const call = async (face: string, action: string, payload: unknown) => server.post({ face, action, payload }, { headers });
  const ok = async (face: string, action: string, payload: unknown) => {
    const reply = await call(face, action, payload);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return reply.body.data;
  };
  const customer = (await ok('payments', 'createCustomer', {})).id as string;
  const fee = (await ok('billing', 'createPrice', { currency: 'usd', type: 'flat', amount: 500 })).id as string;
  const tokens = (await ok('billing', 'createPrice', { currency: 'usd', type: 'perUnit', unitAmount: '1', usage: { source: 'meter', meterType: 'tokens' } })).id as string;
  const use = (id: string, value: number, at: number) => ok('usage', 'ingest', { events: [{ id, type: 'tokens', value, time: new Date(at).toISOString() }] });
  const invoices = async (subscription: string) => (await ok('billing', 'listInvoices', { subscription, limit: 100 })).items.reverse() as any[];
  return { headers, call, ok, customer, fee, tokens, use, invoices, p: { mode: 'test' as const, entityId: headers['x-entity-id'] } };
}

describe('billing edges', () => {
  it('asks the processor the same question when a payment is tried again after its answer was lost', async () => {
    const { ok, call, customer, fee } = await account();
    const sub = await ok('billing', 'subscribe', { customer, prices: [fee] });
    const invoice = await ok('billing', 'finalizeInvoice', { id: (await ok('billing', 'cancelSubscription', { id: sub.id })).latestInvoice });
    keys.length = 0;
    lose = 1;
    const lost = await call('billing', 'payInvoice', { id: invoice.id, paymentMethod: VISA });
    expect([lost.status, lost.body.error.code]).toEqual([502, 'provider_failed']);
    expect(await ok('billing', 'getInvoice', { id: invoice.id })).toMatchObject({ status: 'open', attemptCount: 0 });
    const paid = await ok('billing', 'payInvoice', { id: invoice.id, paymentMethod: VISA });
    expect(paid).toMatchObject({ status: 'paid', amountPaid: 500 });
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
    const charged = (await ok('payments', 'listIntents', { customer })).items;
    expect(charged.map((i: any) => i.id)).toEqual([paid.paymentIntent]);
  });

  it("does not ask again for a voided invoice's usage, and still bills what arrives after", async () => {
    const { ok, customer, tokens, use, invoices } = await account();
    const start = Date.now() - 2 * DAY - HOUR;
    await use('a', 1000, start + HOUR);
    const sub = await ok('billing', 'subscribe', { customer, prices: [tokens], interval: 'day', backdateStartDate: new Date(start).toISOString() });
    const anchor = Date.parse(sub.startDate);
    await closer.pass(anchor + DAY + 60_000);
    const [first] = await invoices(sub.id);
    expect(first).toMatchObject({ status: 'open', total: 1000 });
    await ok('billing', 'voidInvoice', { id: first.id });
    await use('b', 10, start + 2 * HOUR);
    await closer.pass(anchor + 2 * DAY + 60_000);
    const second = (await invoices(sub.id))[1];
    expect(second.lines.filter((l: any) => l.late).map((l: any) => [l.quantity, l.amount])).toEqual([['10', 10]]);
    const last = await ok('billing', 'finalizeInvoice', { id: (await ok('billing', 'cancelSubscription', { id: sub.id })).latestInvoice });
    expect(last.lines.filter((l: any) => l.late)).toEqual([]);
  });

  it('lets a cancellation at period end made after the closer read the subscription win', async () => {
    const { ok, customer, fee, p } = await account();
    const sub = await ok('billing', 'subscribe', { customer, prices: [fee], interval: 'day', backdateStartDate: new Date(Date.now() - DAY - HOUR).toISOString() });
    const stale = (await getSubscription(server.db, p, sub.id))!;
    await ok('billing', 'cancelSubscription', { id: sub.id, atPeriodEnd: true });
    expect(await closePeriod(server.db, p, usageTotals, stale, () => {})).toBeUndefined();
    await closer.pass();
    expect(await ok('billing', 'getSubscription', { id: sub.id })).toMatchObject({ status: 'canceled', canceledAt: sub.currentPeriodEnd });
  });

  it('invoices the periods already over when an overdue subscription is canceled at once', async () => {
    const { ok, customer, fee, invoices } = await account();
    const sub = await ok('billing', 'subscribe', { customer, prices: [fee], interval: 'day', backdateStartDate: new Date(Date.now() - 2 * DAY - HOUR).toISOString() });
    const canceled = await ok('billing', 'cancelSubscription', { id: sub.id });
    // Made in the same millisecond, their ids need not sort by creation: in the order of their periods.
    const all = (await invoices(sub.id)).sort((a: any, b: any) => a.periodStart.localeCompare(b.periodStart));
    expect(all.map((i: any) => [i.periodStart, i.status])).toEqual([
      [sub.startDate, 'draft'],
      [new Date(Date.parse(sub.startDate) + DAY).toISOString(), 'draft'],
      [new Date(Date.parse(sub.startDate) + 2 * DAY).toISOString(), 'draft'],
    ]);
    expect(all.at(-1).periodEnd).toBe(canceled.currentPeriodEnd);
    expect(all.map((i: any) => i.total)).toEqual([500, 500, 500]);
  });

  it('answers 400 for amounts too large to bill, and still closes the period and finalizes other drafts', async () => {
    const huge = await account();
    const sub = await huge.ok('billing', 'subscribe', { customer: huge.customer, prices: [huge.fee, huge.tokens], interval: 'day' });
    // Ten events of the most one may carry: 10¹⁶ cents, past what a number holds exactly.
    for (let i = 0; i < 10; i++) await huge.use(`big-${i}`, 1e15, Date.now());
    const upcoming = await huge.call('billing', 'upcomingInvoice', { subscription: sub.id });
    expect([upcoming.status, upcoming.body.error.code]).toEqual([400, 'amount_too_large']);
    const draft = (await huge.ok('billing', 'cancelSubscription', { id: sub.id })).latestInvoice;
    const refused = await huge.call('billing', 'finalizeInvoice', { id: draft });
    expect([refused.status, refused.body.error.code]).toEqual([400, 'amount_too_large']);

    const fine = await account();
    const other = await fine.ok('billing', 'subscribe', { customer: fine.customer, prices: [fine.fee] });
    const otherDraft = (await fine.ok('billing', 'cancelSubscription', { id: other.id })).latestInvoice;
    await closer.pass(Date.now() + 2 * 60_000);
    expect((await fine.ok('billing', 'getInvoice', { id: otherDraft })).status).toBe('open');
    expect((await huge.call('billing', 'getInvoice', { id: draft })).body.error.code).toBe('amount_too_large');
  });

  it("keeps a price of the calls' cost in the platform's currency", async () => {
    const { call } = await account();
    const reply = await call('billing', 'createPrice', { currency: 'eur', type: 'perUnit', unitAmount: '100', usage: { source: 'cost' } });
    expect([reply.status, reply.body.error.code, reply.body.error.param]).toEqual([400, 'payload_invalid', '/payload/currency']);
  });
});
