/**
 * The `billing` face over real HTTP, on SQLite and on PostgreSQL: prices checked at their fields; the upcoming
 * invoice rated from the calls' cost and ingested meters, each line's usage query giving its quantity back
 * through `usage.summary`; periods closed and drafts finalized by the period closer (two closers racing close
 * each period once), numbered invoices with frozen lines; late usage billed on the next invoice at the margin;
 * paying through payments with a decline, an idempotent replay and a refund; void and uncollectible; events
 * for every change, and none from an atomic batch that fails.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PeriodCloser } from '../../src/faces/billing/period-closer.js';
import { openShippedStore } from '../../src/server/shipped.js';
import { DECIMAL_SUMS_SINCE } from '../../src/faces/usage/versions.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { usageTotals } from '../../src/faces/usage/totals.js';

const VISA = { card: { number: '4242424242424242', expMonth: 12, expYear: 2035 } };
const DECLINED = { card: { number: '4000000000000002', expMonth: 12, expYear: 2035 } };
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe.each([
  { name: 'SQLite', postgres: false },
  { name: 'PostgreSQL', postgres: true },
])('the billing face on $name', ({ postgres }) => {
  let server: TestServer;
  let closer: PeriodCloser;
  beforeAll(async () => {
    server = await startServer({ postgres, usageFlushMs: 20, billing: { closer: false } });
    closer = new PeriodCloser(server.db, { graceMs: 0, intervalMs: 60_000, apiVersion: () => '2026-09-01', usage: () => usageTotals });
  });
  afterAll(() => server?.close());

  const call = (face: string, action: string, payload: unknown, headers: Record<string, string> = {}) => server.post({ face, action, payload }, { headers });
  const bill = (action: string, payload: unknown, headers: Record<string, string> = {}) => call('billing', action, payload, headers);
  const ok = async (action: string, payload: unknown, headers: Record<string, string> = {}) => {
    const reply = await bill(action, payload, headers);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return reply.body.data;
  };
  const eventsOf = async (type: string, entity: string) =>
    (await server.db.selectFrom('events').select(['data']).where('type', '=', type).where('entity_id', '=', entity).execute()).map((e) => JSON.parse(e.data));
  const as = (entity: string) => ({ 'x-entity-id': entity });
  /** usage.summary in the version whose sums are exact decimal strings, as a line's quantity is (named: it may not be in force yet). */
  const exactSummary = async (payload: unknown, entity: string) =>
    (await server.post({ face: 'usage', action: 'summary', payload, options: { version: DECIMAL_SUMS_SINCE } }, { headers: as(entity) })).body.data;

  /** A customer, and the three kinds of price, in `entity`. */
  async function setUp(entity: string) {
    const customer = (await call('payments', 'createCustomer', { email: 'ada@example.com' }, as(entity))).body.data.id as string;
    const fee = await ok('createPrice', { nickname: 'Platform fee', currency: 'usd', type: 'flat', amount: 500 }, as(entity));
    const tokens = await ok(
      'createPrice',
      { nickname: 'Tokens', currency: 'usd', type: 'graduated', usage: { source: 'meter', meterType: 'tokens' }, tiers: [{ upTo: 1000, unitAmount: '0' }, { upTo: null, unitAmount: '0.2' }] },
      as(entity),
    );
    // Pass-through of the calls' cost: 100 cents per dollar of cost, with a markup of a fifth.
    const calls = await ok('createPrice', { nickname: 'API calls', currency: 'usd', type: 'perUnit', unitAmount: '120', usage: { source: 'cost' } }, as(entity));
    return { customer, prices: [fee.id, tokens.id, calls.id] as string[] };
  }
  const ingest = (entity: string, events: { id: string; value: number; time?: string }[]) =>
    call('usage', 'ingest', { events: events.map((e) => ({ type: 'tokens', ...e })) }, as(entity));

  it('checks prices at their fields and keeps them as made', async () => {
    const cases: [unknown, string][] = [
      [{ currency: 'usd', type: 'perUnit', unitAmount: '1' }, '/payload/usage'],
      [{ currency: 'usd', type: 'graduated', usage: { source: 'cost' }, tiers: [{ upTo: 10, unitAmount: '1' }, { upTo: 20, unitAmount: '1' }] }, '/payload/tiers/1/upTo'],
      [{ currency: 'usd', type: 'flat', amount: 100, unitAmount: '2' }, '/payload/unitAmount'],
      [{ currency: 'usd', type: 'perUnit', unitAmount: '1', usage: { source: 'meter' } }, '/payload/usage/meterType'],
      [{ currency: 'abc', type: 'flat', amount: 100 }, '/payload/currency'],
      [{ currency: 'usd', type: 'perUnit', unitAmount: 0.1, usage: { source: 'cost' } }, '/payload/unitAmount'],
      // The schema's branch per type: a flat price without its amount, a type no branch has, no type at all.
      [{ currency: 'usd', type: 'flat', unitAmount: '1' }, '/payload/amount'],
      [{ currency: 'usd', type: 'monthly', amount: 100 }, '/payload/type'],
      [{ currency: 'usd', amount: 100 }, '/payload/type'],
      // The usage's branch per source: a cost usage names no meter type, and a source no branch has.
      [{ currency: 'usd', type: 'perUnit', unitAmount: '1', usage: { source: 'cost', meterType: 'tokens' } }, '/payload/usage/meterType'],
      [{ currency: 'usd', type: 'perUnit', unitAmount: '1', usage: { source: 'tokens' } }, '/payload/usage/source'],
    ];
    for (const [payload, param] of cases) {
      const reply = await bill('createPrice', payload);
      expect(reply.status, JSON.stringify(reply.body)).toBe(400);
      expect([reply.status, reply.body.error.code, reply.body.error.param], JSON.stringify(payload)).toEqual([400, 'payload_invalid', param]);
    }
    const price = await ok('createPrice', { currency: 'eur', type: 'perUnit', unitAmount: '0.005', usage: { source: 'meter', meterType: 'gb' } });
    expect(price).toMatchObject({ currency: 'eur', type: 'perUnit', unitAmount: '0.005', usage: { source: 'meter', meterType: 'gb' } });
    expect(await ok('getPrice', { id: price.id })).toEqual(price);
    expect((await ok('listPrices', {})).items.map((p: any) => p.id)).toContain(price.id);
    const other = await bill('getPrice', { id: price.id }, as('someone-else'));
    expect(other.status).toBe(404);
  });

  it('refuses subscriptions mixing currencies or naming what does not exist', async () => {
    const { customer, prices } = await setUp('mixed');
    const euro = await ok('createPrice', { currency: 'eur', type: 'flat', amount: 100 }, as('mixed'));
    const mixed = await bill('subscribe', { customer, prices: [prices[0], euro.id] }, as('mixed'));
    expect([mixed.status, mixed.body.error.param]).toEqual([400, '/payload/prices/1']);
    const unknown = await bill('subscribe', { customer, prices: [prices[0], 'price_nothing'] }, as('mixed'));
    expect([unknown.status, unknown.body.error.code, unknown.body.error.param]).toEqual([404, 'resource_not_found', '/payload/prices/1']);
    const nobody = await bill('subscribe', { customer: 'cus_nobody', prices }, as('mixed'));
    expect([nobody.status, nobody.body.error.param]).toEqual([404, '/payload/customer']);
  });

  it('rates the upcoming invoice from the calls and the meters, each line naming a query that gives its quantity back', async () => {
    const entity = 'upcoming';
    const { customer, prices } = await setUp(entity);
    const subscription = await ok('subscribe', { customer, prices, interval: 'day' }, as(entity));
    expect(subscription).toMatchObject({ status: 'active', currency: 'usd', interval: 'day', intervalCount: 1, prices });
    expect(Date.parse(subscription.currentPeriodEnd) - Date.parse(subscription.currentPeriodStart)).toBe(DAY);
    expect((await eventsOf('billing.subscription.created', entity)).map((s) => s.id)).toEqual([subscription.id]);

    expect((await ingest(entity, [{ id: 'a', value: 1200 }, { id: 'b', value: 300 }])).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await call('ai', 'generate', { model: 'test-model', prompt: 'Say hello' }, as(entity))).status).toBe(200);
    // Wait until the three calls are written (the usage stage flushes every 20 ms here).
    const range = { from: subscription.currentPeriodStart, to: new Date(Date.now() + 120_000).toISOString() };
    await expect.poll(async () => (await call('usage', 'summary', { ...range, filter: { face: ['ai'] } }, as(entity))).body.data.totals.calls).toBe(3);

    const upcoming = await ok('upcomingInvoice', { subscription: subscription.id }, as(entity));
    const [fee, tokens, calls] = upcoming.lines;
    expect(fee).toMatchObject({ price: prices[0], description: 'Platform fee', quantity: '1', amount: 500 });
    expect(tokens).toMatchObject({ price: prices[1], quantity: '1500', amount: 100, exactAmount: '100', usage: { source: 'meter', meterType: 'tokens', quantity: '1500' } });
    expect(tokens.tiers.map((t: any) => t.quantity)).toEqual(['1000', '500']);
    // The cost line's query, asked of usage.summary, gives its quantity back; the amount is it × 120, rounded once.
    const summary = await exactSummary({ from: calls.usage.from, to: calls.usage.to }, entity);
    expect(calls.usage.quantity).toBe(summary.totals.cost);
    expect(calls.quantity).toBe(summary.totals.cost);
    expect(Number(summary.totals.cost)).toBeGreaterThan(0);
    expect(calls.amount).toBe(Math.round(Number(summary.totals.cost) * 120));
    expect(summary.meters.find((m: any) => m.type === 'tokens').value).toBe('1500');
    expect(upcoming).toMatchObject({ subscription: subscription.id, customer, currency: 'usd', periodStart: subscription.currentPeriodStart, total: 500 + 100 + calls.amount });
  });

  it('bills metered quantities summed exactly: 0.1 + 0.2 is 0.3, and eleven events of 999 999 999 999 999 are …989', async () => {
    const entity = 'exact-sums';
    const customer = (await call('payments', 'createCustomer', { email: 'ada@example.com' }, as(entity))).body.data.id as string;
    // 15 cents a unit: 0.3 units come to 4.5 cents, 4 once rounded half-even (the float sum 0.30000000000000004 would make 5).
    const gb = await ok('createPrice', { nickname: 'GB', currency: 'usd', type: 'perUnit', unitAmount: '15', usage: { source: 'meter', meterType: 'gb' } }, as(entity));
    const rows = await ok('createPrice', { nickname: 'Rows', currency: 'usd', type: 'perUnit', unitAmount: '0.001', usage: { source: 'meter', meterType: 'rows' } }, as(entity));
    const subscription = await ok('subscribe', { customer, prices: [gb.id, rows.id], interval: 'day' }, as(entity));
    const events = [
      { id: 'gb-1', type: 'gb', value: 0.1 },
      { id: 'gb-2', type: 'gb', value: 0.2 },
      ...Array.from({ length: 11 }, (_, i) => ({ id: `rows-${i}`, type: 'rows', value: 999_999_999_999_999 })),
    ];
    expect((await call('usage', 'ingest', { events }, as(entity))).body.data.accepted).toBe(13);

    const [gbLine, rowsLine] = (await ok('upcomingInvoice', { subscription: subscription.id }, as(entity))).lines;
    expect(gbLine).toMatchObject({ quantity: '0.3', exactAmount: '4.5', amount: 4, usage: { quantity: '0.3' } });
    expect(rowsLine).toMatchObject({ quantity: '10999999999999989', exactAmount: '10999999999999.989', amount: 11_000_000_000_000, usage: { quantity: '10999999999999989' } });
    // The line's query, asked of usage.summary, gives the same quantity back.
    const summary = await exactSummary({ from: rowsLine.usage.from, to: rowsLine.usage.to }, entity);
    expect(summary.meters).toEqual([
      { type: 'gb', events: 2, value: '0.3' },
      { type: 'rows', events: 11, value: '10999999999999989' },
    ]);
  });

  it('closes periods into drafts, finalizes them numbered and frozen, and bills late usage on the next invoice', async () => {
    const entity = 'periods';
    const { customer, prices } = await setUp(entity);
    const now = Date.now();
    const subscription = await ok('subscribe', { customer, prices: prices.slice(0, 2), interval: 'day', backdateStartDate: new Date(now - 2 * DAY - HOUR).toISOString() }, as(entity));
    const firstDay = Date.parse(subscription.currentPeriodStart);
    expect((await ingest(entity, [{ id: 'p1', value: 1500, time: new Date(firstDay + HOUR).toISOString() }])).body.data.results[0].status).toBe('accepted');

    // Two closers (the second on a store of its own, as another process) race: each period is closed once.
    const store = server.databaseUrl ? await openShippedStore({ dataDir: '.', databaseUrl: server.databaseUrl }) : undefined;
    const rival = new PeriodCloser(store ?? server.db, { graceMs: 3 * DAY, intervalMs: 60_000, apiVersion: () => '2026-09-01', usage: () => usageTotals });
    const [mine, theirs] = await Promise.all([closer.pass(now), rival.pass(now)]);
    await store?.destroy();
    expect(mine.closed + theirs.closed).toBe(2);
    // The rival waits three days before finalizing (it finalizes nothing); a draft it closed after this closer
    // looked is finalized by this one's next pass.
    expect(theirs.finalized).toBe(0);
    expect(mine.finalized + (await closer.pass(now)).finalized).toBe(2);
    // Newest period first (ids made in one millisecond need not sort by creation).
    const listed = (await ok('listInvoices', { subscription: subscription.id }, as(entity))).items.sort((a: any, b: any) => b.periodStart.localeCompare(a.periodStart));
    expect(listed.map((i: any) => i.status).sort()).toEqual(['open', 'open']);
    const [second, first] = listed;
    expect(first).toMatchObject({ number: 'INV-000001', periodStart: subscription.currentPeriodStart, total: 600, amountDue: 600 });
    expect(first.lines[1]).toMatchObject({ quantity: '1500', amount: 100, usage: { from: first.periodStart, to: first.periodEnd, quantity: '1500' } });
    expect(second).toMatchObject({ number: 'INV-000002', periodStart: first.periodEnd, total: 500 });
    expect(await eventsOf('billing.invoice.created', entity)).toHaveLength(2);
    expect((await eventsOf('billing.invoice.finalized', entity)).map((i) => i.number).sort()).toEqual(['INV-000001', 'INV-000002']);
    // A finalized invoice no longer changes, and is not finalized twice.
    expect((await bill('finalizeInvoice', { id: first.id }, as(entity))).body.error.code).toBe('invoice_state_invalid');
    expect((await closer.pass(now)).finalized).toBe(0);

    // Late usage of the first period: 500 more tokens, all in the paid tier at 0.2.
    await ingest(entity, [{ id: 'p1-late', value: 500, time: new Date(firstDay + 2 * HOUR).toISOString() }]);
    expect((await ok('getInvoice', { id: first.id }, as(entity))).lines[1].quantity).toBe('1500');
    const canceled = await ok('cancelSubscription', { id: subscription.id }, as(entity));
    expect(canceled).toMatchObject({ status: 'canceled', latestInvoice: expect.stringMatching(/^in_/) });
    const draft = await ok('getInvoice', { id: canceled.latestInvoice }, as(entity));
    expect(draft).toMatchObject({ status: 'draft', periodStart: second.periodEnd, periodEnd: canceled.currentPeriodEnd });
    const final = await ok('finalizeInvoice', { id: draft.id }, as(entity));
    const late = final.lines.find((l: any) => l.late);
    expect(late).toMatchObject({ price: prices[1], periodStart: first.periodStart, quantity: '500', amount: 100, usage: { from: first.periodStart, quantity: '2000' } });
    expect(final).toMatchObject({ number: 'INV-000003', status: 'open', total: 600 });
    expect((await eventsOf('billing.subscription.canceled', entity)).map((s) => s.id)).toEqual([subscription.id]);
    expect((await bill('cancelSubscription', { id: subscription.id }, as(entity))).body.error.code).toBe('subscription_state_invalid');
  });

  it('ends a subscription canceled at period end when the period closes, with its last invoice', async () => {
    const entity = 'period-end';
    const { customer, prices } = await setUp(entity);
    const subscription = await ok('subscribe', { customer, prices: [prices[0]], interval: 'day' }, as(entity));
    expect(await ok('cancelSubscription', { id: subscription.id, atPeriodEnd: true }, as(entity))).toMatchObject({ status: 'active', cancelAtPeriodEnd: true });
    expect(await closer.pass()).toEqual({ closed: 0, finalized: 0 });
    await closer.pass(Date.parse(subscription.currentPeriodEnd) + 1000);
    const ended = await ok('getSubscription', { id: subscription.id }, as(entity));
    expect(ended).toMatchObject({ status: 'canceled', canceledAt: subscription.currentPeriodEnd, currentPeriodEnd: subscription.currentPeriodEnd });
    const [invoice] = (await ok('listInvoices', { subscription: subscription.id }, as(entity))).items;
    expect(invoice).toMatchObject({ id: ended.latestInvoice, status: 'open', total: 500, periodEnd: subscription.currentPeriodEnd });
    expect((await eventsOf('billing.subscription.canceled', entity)).map((s) => s.status)).toEqual(['canceled']);
    await closer.pass(Date.parse(subscription.currentPeriodEnd) + 2 * DAY);
    expect((await ok('listInvoices', { subscription: subscription.id }, as(entity))).items).toHaveLength(1);
  });

  it('pays through payments: a decline leaves the invoice open, a replay charges once, the payment refunds', async () => {
    const entity = 'paying';
    const { customer, prices } = await setUp(entity);
    const subscription = await ok('subscribe', { customer, prices: [prices[0]], interval: 'week' }, as(entity));
    const draftId = (await ok('cancelSubscription', { id: subscription.id }, as(entity))).latestInvoice as string;
    const invoice = await ok('finalizeInvoice', { id: draftId }, as(entity));
    expect(invoice).toMatchObject({ status: 'open', total: 500, amountDue: 500 });

    const declined = await bill('payInvoice', { id: invoice.id, paymentMethod: DECLINED }, as(entity));
    expect(declined.status).toBe(402);
    expect(declined.body.error).toMatchObject({ type: 'payment_error', code: 'card_declined', details: { declineCode: 'card_declined', invoice: invoice.id } });
    expect(await ok('getInvoice', { id: invoice.id }, as(entity))).toMatchObject({ status: 'open', attemptCount: 1, amountPaid: 0 });
    expect((await eventsOf('payments.intent.failed', entity)).map((i) => i.id)).toContain(declined.body.error.details.intent);

    const key = { ...as(entity), 'x-idempotency-key': `pay-${invoice.id}` };
    const paid = await bill('payInvoice', { id: invoice.id, paymentMethod: VISA }, key);
    expect(paid.body.data).toMatchObject({ status: 'paid', amountPaid: 500, amountDue: 0, attemptCount: 2, paymentIntent: expect.stringMatching(/^pi_/) });
    const replay = await bill('payInvoice', { id: invoice.id, paymentMethod: VISA }, key);
    expect(replay.body).toEqual(paid.body);
    const again = await bill('payInvoice', { id: invoice.id, paymentMethod: VISA }, as(entity));
    expect([again.status, again.body.error.code]).toEqual([400, 'invoice_state_invalid']);
    const charged = (await call('payments', 'listIntents', { customer }, as(entity))).body.data.items.filter((i: any) => i.status === 'succeeded');
    expect(charged.map((i: any) => i.id)).toEqual([paid.body.data.paymentIntent]);
    expect(charged[0]).toMatchObject({ amount: 500, currency: 'usd', metadata: { invoice: invoice.id } });
    expect((await eventsOf('billing.invoice.paid', entity)).map((i) => i.id)).toEqual([invoice.id]);
    expect((await eventsOf('payments.intent.succeeded', entity)).map((i) => i.id)).toEqual([paid.body.data.paymentIntent]);

    const refund = await call('payments', 'createRefund', { intent: paid.body.data.paymentIntent, amount: 200 }, as(entity));
    expect(refund.body.data).toMatchObject({ amount: 200, status: 'succeeded' });
  });

  it('voids, marks uncollectible, and pays at once what comes to nothing', async () => {
    const entity = 'settling';
    const { customer, prices } = await setUp(entity);
    const invoiceOf = async (priceIds: string[]) => {
      const subscription = await ok('subscribe', { customer, prices: priceIds }, as(entity));
      return ok('finalizeInvoice', { id: (await ok('cancelSubscription', { id: subscription.id }, as(entity))).latestInvoice }, as(entity));
    };
    const a = await invoiceOf([prices[0]!]);
    expect((await ok('voidInvoice', { id: a.id }, as(entity))).status).toBe('void');
    expect((await bill('voidInvoice', { id: a.id }, as(entity))).body.error.code).toBe('invoice_state_invalid');
    expect((await bill('payInvoice', { id: a.id, paymentMethod: VISA }, as(entity))).body.error.code).toBe('invoice_state_invalid');
    expect((await eventsOf('billing.invoice.voided', entity)).map((i) => i.id)).toEqual([a.id]);

    const b = await invoiceOf([prices[0]!]);
    expect((await ok('markInvoiceUncollectible', { id: b.id }, as(entity))).status).toBe('uncollectible');
    expect((await ok('payInvoice', { id: b.id, paymentMethod: VISA }, as(entity))).status).toBe('paid');

    // Nothing used on a usage-only subscription: finalized and paid at once.
    const c = await invoiceOf([prices[1]!]);
    expect(c).toMatchObject({ status: 'paid', total: 0, amountDue: 0 });
    expect((await eventsOf('billing.invoice.paid', entity)).map((i) => i.id)).toContain(c.id);
  });

  it('leaves no subscription and no event when an atomic batch fails', async () => {
    const entity = 'atomic';
    const { customer, prices } = await setUp(entity);
    const reply = await server.post(
      {
        face: 'batch',
        action: 'run',
        payload: { mode: 'atomic', requests: [{ face: 'billing', action: 'subscribe', payload: { customer, prices } }, { face: 'billing', action: 'getPrice', payload: { id: 'price_missing' } }] },
      },
      { headers: as(entity) },
    );
    expect([reply.status, reply.body.error.code]).toEqual([404, 'batch_aborted']);
    expect((await ok('listSubscriptions', {}, as(entity))).items).toEqual([]);
    expect(await eventsOf('billing.subscription.created', entity)).toEqual([]);
  });
});
