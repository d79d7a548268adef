/**
 * Live-mode payments end to end: a live key's calls go through the Stripe processor to a local server
 * speaking Stripe's wire format. A charge, a decline (402 with its decline code), a manual capture and a
 * refund each reach Stripe once, under keys of their own (the intent and its attempt, the refund), scoped to
 * the entity, per operation; a replayed call reaches Stripe no more.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stripeProcessor } from '../../src/providers/payments/stripe.js';
import { startFakeStripe, type FakeStripe } from '../helpers/fake-stripe.js';
import { startServer, type TestServer } from '../helpers/server.js';

const STRIPE_KEY = 'sk_test_platform_secret_key';

describe('live payments through Stripe', () => {
  let stripe: FakeStripe;
  let server: TestServer;
  let live: string;
  beforeAll(async () => {
    stripe = await startFakeStripe(STRIPE_KEY);
    server = await startServer({ payments: { live: stripeProcessor({ apiKey: STRIPE_KEY, host: stripe.host, port: stripe.port, protocol: 'http' }) } });
    live = (await server.key({ mode: 'live' })).secret;
  });
  afterAll(async () => {
    await server?.close();
    await stripe?.close();
  });

  const pay = (action: string, payload: unknown, headers: Record<string, string> = {}, entity = 'acme') =>
    server.post({ face: 'payments', action, payload }, { headers: { authorization: `Bearer ${live}`, 'x-entity-id': entity, ...headers } });

  it('charges, declines, captures and refunds through Stripe, each once', async () => {
    const charged = await pay('createIntent', { amount: 2500, currency: 'usd', paymentMethod: { id: 'pm_card_visa' }, confirm: true }, { 'x-idempotency-key': 'order-7' });
    expect(charged.body.data).toMatchObject({ status: 'succeeded', amountReceived: 2500, card: { brand: 'visa', last4: '4242' } });
    const confirms = stripe.requests.filter((r) => r.path === '/v1/payment_intents');
    expect(confirms).toHaveLength(1);
    expect(confirms[0]!.form).toMatchObject({ amount: '2500', currency: 'usd', payment_method: 'pm_card_visa', confirm: 'true', capture_method: 'automatic' });
    expect(confirms[0]!.idempotencyKey).toMatch(new RegExp(`^[\\w-]{16}:${charged.body.data.id}:0:confirm$`));

    // The replay answers from the platform's store: Stripe sees nothing more.
    const replay = await pay('createIntent', { amount: 2500, currency: 'usd', paymentMethod: { id: 'pm_card_visa' }, confirm: true }, { 'x-idempotency-key': 'order-7' });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(stripe.requests.filter((r) => r.path === '/v1/payment_intents')).toHaveLength(1);

    // The same key from another entity is another call, and Stripe gets another key for it.
    await pay('createIntent', { amount: 2500, currency: 'usd', paymentMethod: { id: 'pm_card_visa' }, confirm: true }, { 'x-idempotency-key': 'order-7' }, 'beta');
    const keys = stripe.requests.filter((r) => r.path === '/v1/payment_intents').map((r) => r.idempotencyKey);
    expect(new Set(keys).size).toBe(2);

    const declined = await pay('createIntent', { amount: 900, currency: 'usd', paymentMethod: { id: 'pm_card_chargeDeclinedInsufficientFunds' }, confirm: true });
    expect([declined.status, declined.body.error.code, declined.body.error.details.declineCode]).toEqual([402, 'insufficient_funds', 'insufficient_funds']);
    // Another card after a decline is another question for Stripe: the attempt in its key moves on.
    const paid = await pay('confirmIntent', { id: declined.body.error.details.intent, paymentMethod: { id: 'pm_card_visa' } });
    expect(paid.body.data.status).toBe('succeeded');
    const tries = stripe.requests.filter((r) => r.form.metadata && (r.form.metadata as Record<string, unknown>).intent === declined.body.error.details.intent).map((r) => r.idempotencyKey);
    expect(tries.map((k) => k?.split(':').slice(-2).join(':'))).toEqual(['0:confirm', '1:confirm']);

    const held = await pay('createIntent', { amount: 4000, currency: 'eur', paymentMethod: { id: 'pm_card_mastercard' }, captureMethod: 'manual', confirm: true });
    expect(held.body.data.status).toBe('requires_capture');
    const captured = await pay('captureIntent', { id: held.body.data.id, amountToCapture: 3500 });
    expect(captured.body.data).toMatchObject({ status: 'succeeded', amountReceived: 3500 });
    const capture = stripe.requests.find((r) => r.path.endsWith('/capture'))!;
    expect(capture.form).toMatchObject({ amount_to_capture: '3500' });

    const refund = await pay('createRefund', { intent: charged.body.data.id, amount: 1000 }, { 'x-idempotency-key': 'refund-1' });
    expect(refund.body.data).toMatchObject({ amount: 1000, status: 'succeeded' });
    const refunds = stripe.requests.filter((r) => r.path === '/v1/refunds');
    expect(refunds).toHaveLength(1);
    expect(refunds[0]!.form).toMatchObject({ amount: '1000' });
    // The refund's own key, recorded with it before Stripe is asked: a retry under the call's key asks the same.
    expect(refunds[0]!.idempotencyKey).toMatch(new RegExp(`^[\\w-]{16}:${refund.body.data.id}:refund$`));
    expect([...stripe.refunds.values()].map((r) => r.amount)).toEqual([1000]);
  });

  it('keeps a confirmation cut short in flight: no other key confirms it, the same key asks Stripe the same question', async () => {
    const created = await pay('createIntent', { amount: 1100, currency: 'usd', paymentMethod: { id: 'pm_card_visa' } });
    const id = created.body.data.id;
    stripe.override = (request) => (request.path === '/v1/payment_intents' ? 'hang' : undefined);
    const before = stripe.requests.length;
    const first = { face: 'payments', action: 'confirmIntent', payload: { id }, options: { timeout: 300 } };
    try {
      const cut = await server.post(first, { headers: { authorization: `Bearer ${live}`, 'x-idempotency-key': 'first-try' } });
      expect([cut.status, cut.body.error.code]).toEqual([504, 'timeout']);
    } finally {
      stripe.override = () => undefined;
    }
    expect((await pay('getIntent', { id })).body.data.status).toBe('requires_confirmation');
    const other = await pay('confirmIntent', { id }, { 'x-idempotency-key': 'second-try' });
    expect([other.status, other.body.error.code, other.body.error.details.status]).toEqual([400, 'intent_state_invalid', 'processing']);
    const again = await server.post(first, { headers: { authorization: `Bearer ${live}`, 'x-idempotency-key': 'first-try' } });
    expect(again.body.data.status).toBe('succeeded');
    const keys = stripe.requests.slice(before).filter((r) => r.path === '/v1/payment_intents').map((r) => r.idempotencyKey);
    // Had the first been charged at Stripe, the second would have been answered with that charge.
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
  });

  it('gives each request of a batch its own processor key', async () => {
    const before = stripe.requests.length;
    const charge = { face: 'payments', action: 'createIntent', payload: { amount: 700, currency: 'usd', paymentMethod: { id: 'pm_card_visa' }, confirm: true } };
    const batch = await server.post(
      { face: 'batch', action: 'run', payload: { mode: 'bestEffort', requests: [charge, charge] } },
      { headers: { authorization: `Bearer ${live}`, 'x-idempotency-key': 'batch-1' } },
    );
    expect(batch.body.data.results.map((r: any) => [r.status, r.data?.status])).toEqual([
      [200, 'succeeded'],
      [200, 'succeeded'],
    ]);
    const keys = stripe.requests.slice(before).map((r) => r.idempotencyKey);
    expect(keys).toHaveLength(2);
    expect(new Set(keys).size).toBe(2);
  });

  it('answers what Stripe refuses in the caller\'s request 400 at the field', async () => {
    const refusals: [Record<string, string>, string, string][] = [
      [{ code: 'amount_too_small', param: 'amount', message: 'Amount must be at least $0.50 usd' }, 'payload_invalid', '/payload/amount'],
      [{ code: 'resource_missing', param: 'payment_method', message: "No such PaymentMethod: 'pm_gone'" }, 'payment_method_invalid', '/payload/paymentMethod'],
    ];
    for (const [refusal, code, param] of refusals) {
      stripe.override = (request) => (request.path === '/v1/payment_intents' ? { status: 400, body: { error: { type: 'invalid_request_error', ...refusal } } } : undefined);
      try {
        const refused = await pay('createIntent', { amount: 20, currency: 'usd', paymentMethod: { id: 'pm_gone' }, confirm: true });
        expect([refused.status, refused.body.error.code, refused.body.error.param]).toEqual([400, code, param]);
        expect(refused.body.error.message).toContain(refusal.message);
      } finally {
        stripe.override = () => undefined;
      }
    }
  });

  it('answers a processor that refused before acting 502 or 503, and keeps nothing of the call', async () => {
    const refusals: [number, string, string][] = [
      [401, 'invalid_request_error', 'provider_failed'],
      [429, 'invalid_request_error', 'provider_unavailable'],
    ];
    for (const [status, type, code] of refusals) {
      stripe.override = (request) => (request.path === '/v1/payment_intents' ? { status, body: { error: { type, message: `Refused (${STRIPE_KEY.slice(0, 8)}…)` } } } : undefined);
      try {
        const failed = await pay('createIntent', { amount: 100 + status, currency: 'usd', paymentMethod: { id: 'pm_card_visa' }, confirm: true });
        expect([failed.body.error.type, failed.body.error.code]).toEqual(['provider_error', code]);
        expect(JSON.stringify(failed.body)).not.toContain(STRIPE_KEY);
        const listed = await pay('listIntents', { limit: 100 });
        expect(listed.body.data.items.some((i: any) => i.amount === 100 + status)).toBe(false);
      } finally {
        stripe.override = () => undefined;
      }
    }
  });
});
