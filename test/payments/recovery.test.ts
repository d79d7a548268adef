/**
 * Charges and refunds the processor may have made when the call that asked for them was cut short, against a
 * local server speaking Stripe's wire format that answers after the call's time-out (docs/calling.md § Idempotency):
 * the call answers 504 and leaves its charge or refund in flight, a retry under the same idempotency key
 * resumes it (the processor replays its first answer: one charge, one refund, 200), and the reconciler
 * settles the ones nobody retries. A processor that refused before acting leaves nothing, and the same key
 * succeeds once it answers; one whose failure leaves it in doubt leaves the charge in flight for the key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stripeProcessor } from '../../src/providers/payments/stripe.js';
import { startFakeStripe, type FakeStripe } from '../helpers/fake-stripe.js';
import { startServer, type TestServer } from '../helpers/server.js';

const STRIPE_KEY = 'sk_test_recovery_key';
/** The processor answers after this long; calls give up before. */
const LATE = { delayMs: 700 };
const TIMEOUT = 250;

describe.each([
  { name: 'SQLite', postgres: false },
  { name: 'PostgreSQL', postgres: true },
])('payments in flight at the processor, on $name', ({ postgres }) => {
  let stripe: FakeStripe;
  /** Its reconciler leaves anything in flight alone for minutes: what happens here is the calls' doing. */
  let server: TestServer;
  /** Its reconciler asks about what has been in flight for longer than the processor takes to answer. */
  let reconciled: TestServer;
  /** Its idempotency records last a second. */
  let brief: TestServer;
  const live: Record<TestServer['url'], string> = {};

  beforeAll(async () => {
    stripe = await startFakeStripe(STRIPE_KEY);
    const payments = { live: stripeProcessor({ apiKey: STRIPE_KEY, host: stripe.host, port: stripe.port, protocol: 'http' }) };
    server = await startServer({ postgres, payments });
    reconciled = await startServer({ postgres, payments, reconciler: { graceMs: LATE.delayMs + 300, intervalMs: 50 } });
    brief = await startServer({ postgres, payments, idempotencyTtlSeconds: 1 });
    for (const s of [server, reconciled, brief]) live[s.url] = (await s.key({ mode: 'live' })).secret;
  });
  afterAll(async () => {
    await server?.close();
    await reconciled?.close();
    await brief?.close();
    await stripe?.close();
  });

  const call = (on: TestServer, action: string, payload: unknown, o: { key?: string; timeout?: number } = {}) =>
    on.post(
      { face: 'payments', action, payload, ...(o.timeout ? { options: { timeout: o.timeout } } : {}) },
      { headers: { authorization: `Bearer ${live[on.url]}`, ...(o.key ? { 'x-idempotency-key': o.key } : {}) } },
    );
  /** Stripe's PaymentIntents and Refunds made for the platform's intent `id`. */
  const chargesOf = (id: string) => [...stripe.intents.values()].filter((i) => i.metadata.intent === id);
  const refundsAt = (stripeIntent: string) => [...stripe.refunds.values()].filter((r) => r.payment_intent === stripeIntent);
  /** Runs `work` while Stripe answers the requests to `path` late, and waits until it has answered them all. */
  async function lateAt<T>(path: string, work: () => Promise<T>): Promise<T> {
    stripe.override = (request) => (request.path === path ? LATE : undefined);
    try {
      return await work();
    } finally {
      stripe.override = () => undefined;
      await stripe.settled();
    }
  }
  async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
    for (let tries = 0; ; tries++) {
      const value = await read();
      if (done(value) || tries === 200) return value;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  const charge = (amount: number) => ({ amount, currency: 'usd', paymentMethod: { id: 'pm_card_visa' }, confirm: true });

  it('resumes a charge cut short by its time-out under the same key: one charge, one intent, 200', async () => {
    const key = `order-${postgres}-1`;
    const cut = await lateAt('/v1/payment_intents', async () => {
      const cut = await call(server, 'createIntent', charge(4100), { key, timeout: TIMEOUT });
      expect([cut.status, cut.body.error.code]).toEqual([504, 'timeout']);
      // In flight: listed, not confirmed yet, and not to be confirmed again under another key.
      const listed = (await call(server, 'listIntents', { limit: 100 })).body.data.items.filter((i: any) => i.amount === 4100);
      expect(listed.map((i: any) => i.status)).toEqual(['requires_confirmation']);
      const again = await call(server, 'confirmIntent', { id: listed[0].id }, { key: `${key}-other` });
      expect([again.status, again.body.error.code, again.body.error.details.status]).toEqual([400, 'intent_state_invalid', 'processing']);
      return listed[0];
    });
    expect(chargesOf(cut.id)).toHaveLength(1);

    const retried = await call(server, 'createIntent', charge(4100), { key });
    expect([retried.status, retried.headers.get('idempotent-replayed')]).toEqual([200, null]);
    expect(retried.body.data).toMatchObject({ id: cut.id, status: 'succeeded', amountReceived: 4100, card: { last4: '4242' } });
    // Stripe was asked the same question under the same key, and replayed its first answer.
    const asked = stripe.requests.filter((r) => (r.form.metadata as Record<string, string> | undefined)?.intent === cut.id);
    expect(asked.map((r) => r.replayed)).toEqual([false, true]);
    expect(asked[1]!.idempotencyKey).toBe(asked[0]!.idempotencyKey);
    expect(chargesOf(cut.id)).toHaveLength(1);
    expect((await call(server, 'listIntents', { limit: 100 })).body.data.items.filter((i: any) => i.amount === 4100)).toHaveLength(1);
    const replayed = await call(server, 'createIntent', charge(4100), { key });
    expect([replayed.status, replayed.headers.get('idempotent-replayed'), replayed.body.data.id]).toEqual([200, 'true', cut.id]);
  });

  it('charges anew under a key used again after its record expired, instead of answering the old charge', async () => {
    const key = `order-${postgres}-again`;
    const first = await call(brief, 'createIntent', charge(5100), { key });
    expect(first.status).toBe(200);
    await new Promise((r) => setTimeout(r, 1_100));
    const again = await call(brief, 'createIntent', charge(5100), { key });
    expect([again.status, again.headers.get('idempotent-replayed')]).toEqual([200, null]);
    expect(again.body.data.id).not.toBe(first.body.data.id);
    expect(chargesOf(again.body.data.id)).toHaveLength(1);
    // Confirming another intent under the same key, once more after expiry, is a call of its own too.
    const open = (await call(brief, 'createIntent', { amount: 5200, currency: 'usd', paymentMethod: { id: 'pm_card_visa' } })).body.data;
    await new Promise((r) => setTimeout(r, 1_100));
    const confirmed = await call(brief, 'confirmIntent', { id: open.id }, { key });
    expect([confirmed.status, confirmed.body.data.id, confirmed.body.data.status]).toEqual([200, open.id, 'succeeded']);
  });

  it('resumes a refund cut short by its time-out under the same key: one refund, 200', async () => {
    const paid = (await call(server, 'createIntent', charge(3000))).body.data;
    const key = `refund-${postgres}-1`;
    await lateAt('/v1/refunds', async () => {
      const cut = await call(server, 'createRefund', { intent: paid.id, amount: 1200 }, { key, timeout: TIMEOUT });
      expect([cut.status, cut.body.error.code]).toEqual([504, 'timeout']);
      // Not refunded yet as far as the API tells, but taken from what may be refunded.
      expect((await call(server, 'listRefunds', { intent: paid.id })).body.data.items).toEqual([]);
      const tooMuch = await call(server, 'createRefund', { intent: paid.id, amount: 1801 });
      expect([tooMuch.status, tooMuch.body.error.code]).toEqual([400, 'refund_too_large']);
    });
    const stripeIntent = chargesOf(paid.id)[0]!.id as string;
    expect(refundsAt(stripeIntent).map((r) => r.amount)).toEqual([1200]);

    const retried = await call(server, 'createRefund', { intent: paid.id, amount: 1200 }, { key });
    expect([retried.status, retried.headers.get('idempotent-replayed')]).toEqual([200, null]);
    expect(retried.body.data).toMatchObject({ intent: paid.id, amount: 1200, status: 'succeeded' });
    expect(refundsAt(stripeIntent).map((r) => r.amount)).toEqual([1200]);
    expect((await call(server, 'listRefunds', { intent: paid.id })).body.data.items.map((r: any) => r.id)).toEqual([retried.body.data.id]);
    expect((await call(server, 'getIntent', { id: paid.id })).body.data.amountRefunded).toBe(1200);
  });

  it('keeps nothing of a charge the processor refused before acting (503), and the same key succeeds once it answers', async () => {
    const key = `busy-${postgres}`;
    stripe.override = (request) => (request.path === '/v1/payment_intents' ? { status: 429, body: { error: { type: 'invalid_request_error', code: 'rate_limit', message: 'Too many requests.' } } } : undefined);
    try {
      const busy = await call(server, 'createIntent', charge(5100), { key });
      expect([busy.status, busy.body.error.code]).toEqual([503, 'provider_unavailable']);
      expect((await call(server, 'listIntents', { limit: 100 })).body.data.items.filter((i: any) => i.amount === 5100)).toEqual([]);
    } finally {
      stripe.override = () => undefined;
    }
    const retried = await call(server, 'createIntent', charge(5100), { key });
    expect([retried.status, retried.headers.get('idempotent-replayed'), retried.body.data.status]).toEqual([200, null, 'succeeded']);
    expect(chargesOf(retried.body.data.id)).toHaveLength(1);
  });

  it('leaves a charge in doubt (a 500 at the processor) in flight, and the same key resumes it', async () => {
    const key = `doubt-${postgres}`;
    stripe.override = (request) => (request.path === '/v1/payment_intents' ? { status: 500, body: { error: { type: 'api_error', message: 'Something went wrong' } } } : undefined);
    try {
      const failed = await call(server, 'createIntent', charge(6100), { key });
      expect([failed.status, failed.body.error.code]).toEqual([502, 'provider_failed']);
      expect(JSON.stringify(failed.body)).not.toContain(STRIPE_KEY);
    } finally {
      stripe.override = () => undefined;
    }
    const listed = (await call(server, 'listIntents', { limit: 100 })).body.data.items.filter((i: any) => i.amount === 6100);
    expect(listed.map((i: any) => i.status)).toEqual(['requires_confirmation']);
    const retried = await call(server, 'createIntent', charge(6100), { key });
    expect([retried.status, retried.body.data.id, retried.body.data.status]).toEqual([200, listed[0].id, 'succeeded']);
    expect(chargesOf(listed[0].id)).toHaveLength(1);
  });

  it('settles a charge cut short that nobody retries, through the reconciler', async () => {
    const id = await lateAt('/v1/payment_intents', async () => {
      const cut = await call(reconciled, 'createIntent', charge(7100), { timeout: TIMEOUT });
      expect(cut.status).toBe(504);
      return (await call(reconciled, 'listIntents', { limit: 100 })).body.data.items.find((i: any) => i.amount === 7100).id as string;
    });
    const settled = await until(async () => (await call(reconciled, 'getIntent', { id })).body.data, (i) => i.status === 'succeeded');
    expect(settled).toMatchObject({ status: 'succeeded', amountReceived: 7100, card: { brand: 'visa', last4: '4242' } });
    expect(chargesOf(id)).toHaveLength(1);
    const events = await reconciled.db.selectFrom('events').select('data').where('type', '=', 'payments.intent.succeeded').where('mode', '=', 'live').execute();
    expect(events.filter((e) => JSON.parse(e.data).id === id)).toHaveLength(1);
    expect((await call(reconciled, 'balance', {})).body.data.available).toContainEqual({ amount: 7100, currency: 'usd' });
  });

  it('settles a refund cut short that nobody retries, through the reconciler', async () => {
    const paid = (await call(reconciled, 'createIntent', charge(8000))).body.data;
    await lateAt('/v1/refunds', async () => {
      const cut = await call(reconciled, 'createRefund', { intent: paid.id, amount: 2500 }, { timeout: TIMEOUT });
      expect(cut.status).toBe(504);
    });
    const settled = await until(async () => (await call(reconciled, 'getIntent', { id: paid.id })).body.data, (i) => i.amountRefunded === 2500);
    expect(settled.amountRefunded).toBe(2500);
    expect(refundsAt(chargesOf(paid.id)[0]!.id).map((r) => r.amount)).toEqual([2500]);
    const listed = (await call(reconciled, 'listRefunds', { intent: paid.id })).body.data.items;
    expect(listed.map((r: any) => [r.amount, r.status])).toEqual([[2500, 'succeeded']]);
    const events = await reconciled.db.selectFrom('events').select('data').where('type', '=', 'payments.refund.succeeded').where('mode', '=', 'live').execute();
    expect(events.filter((e) => JSON.parse(e.data).intent === paid.id)).toHaveLength(1);
  });
});
