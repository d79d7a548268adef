/**
 * The `payments` face over real HTTP, on SQLite and on PostgreSQL, with the test-mode sandbox: customers;
 * intents through Stripe's states (automatic and manual capture, cancel, a decline kept on its intent and
 * answered 402 with its decline code); refunds (partial, full, too large); the balance derived from the
 * ledger; money checks; idempotent retries that charge once; events for every change; and live mode without
 * a processor.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postingSums } from '../../src/faces/payments/ledger.js';
import { startServer, type TestServer } from '../helpers/server.js';

const VISA = { card: { number: '4242424242424242', expMonth: 12, expYear: 2035 } };
const DECLINED = { card: { number: '4000000000000002', expMonth: 12, expYear: 2035 } };
const NO_FUNDS = { card: { number: '4000000000009995', expMonth: 12, expYear: 2035 } };

describe.each([
  { name: 'SQLite', postgres: false },
  { name: 'PostgreSQL', postgres: true },
])('the payments face on $name', ({ postgres }) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ postgres });
  });
  afterAll(() => server?.close());

  const pay = (action: string, payload: unknown, headers: Record<string, string> = {}) => server.post({ face: 'payments', action, payload }, { headers });
  const eventsOf = async (type: string) => (await server.db.selectFrom('events').select(['type', 'data']).where('type', '=', type).where('entity_id', '=', 'acme').execute()).map((e) => JSON.parse(e.data));
  const balance = async () => (await pay('balance', {})).body.data;

  it('keeps customers', async () => {
    const created = await pay('createCustomer', { email: 'ada@example.com', name: 'Ada', metadata: { plan: 'pro' } });
    expect(created.status).toBe(200);
    expect(created.body.data).toMatchObject({ email: 'ada@example.com', name: 'Ada', metadata: { plan: 'pro' } });
    const id = created.body.data.id;
    expect(id).toMatch(/^cus_/);
    const updated = await pay('updateCustomer', { id, name: 'Ada Lovelace' });
    expect(updated.body.data).toMatchObject({ id, name: 'Ada Lovelace', email: 'ada@example.com' });
    expect((await pay('getCustomer', { id })).body.data.name).toBe('Ada Lovelace');
    expect((await pay('listCustomers', {})).body.data.items.map((c: any) => c.id)).toContain(id);
    // Another entity does not see it.
    const other = await server.post({ face: 'payments', action: 'getCustomer', payload: { id } }, { headers: { 'x-entity-id': 'other' } });
    expect([other.status, other.body.error.code]).toEqual([404, 'resource_not_found']);
  });

  it('charges at once with automatic capture, and refunds part, then the rest, never more', async () => {
    const before = await balance();
    const charged = await pay('createIntent', { amount: 2000, currency: 'usd', paymentMethod: VISA, confirm: true });
    expect(charged.status).toBe(200);
    const intent = charged.body.data;
    expect(intent).toMatchObject({ status: 'succeeded', amount: 2000, amountReceived: 2000, amountRefunded: 0, card: { brand: 'visa', last4: '4242' } });
    expect((await eventsOf('payments.intent.succeeded')).map((e) => e.id)).toContain(intent.id);

    const part = await pay('createRefund', { intent: intent.id, amount: 500, reason: 'requested_by_customer' });
    expect(part.body.data).toMatchObject({ intent: intent.id, amount: 500, currency: 'usd', status: 'succeeded' });
    const tooMuch = await pay('createRefund', { intent: intent.id, amount: 1501 });
    expect([tooMuch.status, tooMuch.body.error.code, tooMuch.body.error.details]).toEqual([400, 'refund_too_large', { left: 1500, asked: 1501 }]);
    const rest = await pay('createRefund', { intent: intent.id });
    expect(rest.body.data.amount).toBe(1500);
    const none = await pay('createRefund', { intent: intent.id });
    expect(none.body.error.code).toBe('refund_too_large');
    expect((await pay('getIntent', { id: intent.id })).body.data.amountRefunded).toBe(2000);
    expect((await pay('listRefunds', { intent: intent.id })).body.data.items.map((r: any) => r.amount)).toEqual([1500, 500]);
    expect((await eventsOf('payments.refund.succeeded')).filter((r) => r.intent === intent.id)).toHaveLength(2);
    // Refunded in full: back where it was (a currency once used stays listed, at zero).
    const usd = (list: any[]) => list.find((m) => m.currency === 'usd')?.amount ?? 0;
    const after = await balance();
    expect([usd(after.available), usd(after.pending)]).toEqual([usd(before.available), usd(before.pending)]);
  });

  it('keeps a decline on its intent, answers 402 with the decline code, and lets another card pay', async () => {
    const created = await pay('createIntent', { amount: 1200, currency: 'eur' });
    expect(created.body.data.status).toBe('requires_payment_method');
    const id = created.body.data.id;
    const declined = await pay('confirmIntent', { id, paymentMethod: DECLINED });
    expect(declined.status).toBe(402);
    expect(declined.body.error).toMatchObject({ type: 'payment_error', code: 'card_declined', param: '/payload/paymentMethod', details: { declineCode: 'card_declined', intent: id } });
    const kept = (await pay('getIntent', { id })).body.data;
    expect(kept).toMatchObject({ status: 'requires_payment_method', amountReceived: 0, lastPaymentError: { code: 'card_declined' } });
    expect((await eventsOf('payments.intent.failed')).map((e) => e.id)).toContain(id);

    const broke = await pay('confirmIntent', { id, paymentMethod: NO_FUNDS });
    expect([broke.status, broke.body.error.code, broke.body.error.details.declineCode]).toEqual([402, 'insufficient_funds', 'insufficient_funds']);
    const paid = await pay('confirmIntent', { id, paymentMethod: VISA });
    expect(paid.body.data).toMatchObject({ status: 'succeeded', amountReceived: 1200 });
    expect(paid.body.data.lastPaymentError).toBeUndefined();
    const again = await pay('confirmIntent', { id, paymentMethod: VISA });
    expect([again.status, again.body.error.code]).toEqual([400, 'intent_state_invalid']);
  });

  it('holds with manual capture, captures part and releases the rest; cancels a hold', async () => {
    const start = await balance();
    const held = await pay('createIntent', { amount: 5000, currency: 'gbp', paymentMethod: VISA, captureMethod: 'manual', confirm: true });
    expect(held.body.data).toMatchObject({ status: 'requires_capture', amountCapturable: 5000, amountReceived: 0 });
    expect((await balance()).pending).toContainEqual({ amount: 5000, currency: 'gbp' });
    const refundHeld = await pay('createRefund', { intent: held.body.data.id });
    expect(refundHeld.body.error.code).toBe('intent_state_invalid');
    const over = await pay('captureIntent', { id: held.body.data.id, amountToCapture: 5001 });
    expect([over.status, over.body.error.code, over.body.error.param]).toEqual([400, 'payload_invalid', '/payload/amountToCapture']);
    const captured = await pay('captureIntent', { id: held.body.data.id, amountToCapture: 3000 });
    expect(captured.body.data).toMatchObject({ status: 'succeeded', amountCapturable: 0, amountReceived: 3000 });

    const other = await pay('createIntent', { amount: 700, currency: 'gbp', paymentMethod: VISA, captureMethod: 'manual', confirm: true });
    const canceled = await pay('cancelIntent', { id: other.body.data.id, cancellationReason: 'abandoned' });
    expect(canceled.body.data).toMatchObject({ status: 'canceled', cancellationReason: 'abandoned', amountCapturable: 0 });
    expect((await eventsOf('payments.intent.canceled')).map((e) => e.id)).toContain(other.body.data.id);
    const gbp = (list: any[]) => list.find((m) => m.currency === 'gbp')?.amount ?? 0;
    const end = await balance();
    expect(gbp(end.pending)).toBe(gbp(start.pending));
    expect(gbp(end.available)).toBe(gbp(start.available) + 3000);
    // Every movement balances: per currency, the postings sum to zero.
    for (const sum of (await postingSums(server.db, { mode: 'test', entityId: 'acme' })).values()) expect(sum).toBe(0);
  });

  it('never keeps a card\'s security code', async () => {
    const created = await pay('createIntent', { amount: 300, currency: 'usd', paymentMethod: { card: { ...VISA.card, cvc: '123' } } });
    expect(created.body.data.status).toBe('requires_confirmation');
    const row = await server.db.selectFrom('payment_intents').select('payment_method').where('id', '=', created.body.data.id).executeTakeFirstOrThrow();
    expect(JSON.parse(row.payment_method!)).toEqual({ card: VISA.card });
    expect((await pay('confirmIntent', { id: created.body.data.id })).body.data.status).toBe('succeeded');
  });

  it('refuses bad money with the field that is wrong', async () => {
    const cases: [unknown, string][] = [
      [{ amount: 10.5, currency: 'usd' }, '/payload/amount'],
      [{ amount: 0, currency: 'usd' }, '/payload/amount'],
      [{ amount: 100, currency: 'USD' }, '/payload/currency'],
      [{ amount: 100, currency: 'xyz' }, '/payload/currency'],
      [{ amount: 100000000, currency: 'usd' }, '/payload/amount'],
    ];
    for (const [payload, param] of cases) {
      const refused = await pay('createIntent', payload);
      expect([refused.status, refused.body.error.code, refused.body.error.param]).toEqual([400, 'payload_invalid', param]);
    }
  });

  it('takes only the currencies of countries, in payments and in billing prices', async () => {
    // ISO 4217 lists these too, but none is money: no currency, testing, gold, a unit of account, a fund.
    for (const currency of ['xxx', 'xts', 'xau', 'xdr', 'bov', 'clf', 'usn']) {
      for (const [face, action, payload] of [
        ['payments', 'createIntent', { amount: 100, currency }],
        ['billing', 'createPrice', { currency, type: 'flat', amount: 100 }],
      ] as const) {
        const refused = await server.post({ face, action, payload });
        expect([refused.status, refused.body.error.type, refused.body.error.code, refused.body.error.param]).toEqual([400, 'invalid_request_error', 'payload_invalid', '/payload/currency']);
      }
    }
    for (const currency of ['usd', 'eur', 'jpy', 'xof']) {
      expect((await pay('createIntent', { amount: 100, currency })).status).toBe(200);
      expect((await server.post({ face: 'billing', action: 'createPrice', payload: { currency, type: 'flat', amount: 100 } })).status).toBe(200);
    }
  });

  it('charges once for a retried call under one idempotency key, and replays its answer', async () => {
    const sums = await postingSums(server.db, { mode: 'test', entityId: 'acme' });
    const transfers = async () => Number((await server.db.selectFrom('ledger_transfers').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const before = await transfers();
    const body = { amount: 999, currency: 'usd', paymentMethod: VISA, confirm: true };
    const first = await pay('createIntent', body, { 'x-idempotency-key': 'charge-once' });
    const second = await pay('createIntent', body, { 'x-idempotency-key': 'charge-once' });
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body.data.id).toBe(first.body.data.id);
    expect(await transfers()).toBe(before + 1);
    const declined = { amount: 999, currency: 'usd', paymentMethod: DECLINED, confirm: true };
    const d1 = await pay('createIntent', declined, { 'x-idempotency-key': 'decline-once' });
    const d2 = await pay('createIntent', declined, { 'x-idempotency-key': 'decline-once' });
    expect([d1.status, d2.status, d2.headers.get('idempotent-replayed')]).toEqual([402, 402, 'true']);
    expect(d2.body.error.details.intent).toBe(d1.body.error.details.intent);
    expect(sums.get('usd')).toBe(0);
  });

  it('answers live calls without a processor 503, and never takes card numbers live', async () => {
    const live = (await server.key({ mode: 'live' })).secret;
    const headers = { authorization: `Bearer ${live}` };
    const withCard = await pay('createIntent', { amount: 100, currency: 'usd', paymentMethod: VISA, confirm: true }, headers);
    expect([withCard.status, withCard.body.error.code]).toEqual([400, 'payment_method_invalid']);
    // Not even kept for a later confirmation.
    const kept = await pay('createIntent', { amount: 100, currency: 'usd', paymentMethod: VISA }, headers);
    expect([kept.status, kept.body.error.code, kept.body.error.param]).toEqual([400, 'payment_method_invalid', '/payload/paymentMethod']);
    const byId = await pay('createIntent', { amount: 100, currency: 'usd', paymentMethod: { id: 'pm_card_visa' }, confirm: true }, headers);
    expect([byId.status, byId.body.error.code]).toEqual([503, 'provider_unavailable']);
    // Nothing of the failed call is kept.
    expect((await pay('listIntents', {}, headers)).body.data.items).toEqual([]);
  });
});
