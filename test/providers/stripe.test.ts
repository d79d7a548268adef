/**
 * The Stripe processor, through the official SDK, against a local server that speaks Stripe's wire format
 * (test/helpers/fake-stripe.ts), so no Stripe account is needed: the form fields and idempotency keys sent,
 * outcomes and decline codes, Stripe's failures as provider errors without the key, and the settings read
 * from the environment.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PaymentProcessor } from '../../src/providers/payments/processor.js';
import { declineCode, stripeIdempotencyKey, stripeProcessor, stripeSettingsFromEnv, type StripeSettings } from '../../src/providers/payments/stripe.js';
import { ApiError } from '../../src/core/errors.js';
import { shippedStatus } from '../helpers/errors.js';
import { startFakeStripe, type FakeStripe } from '../helpers/fake-stripe.js';

const API_KEY = 'sk_test_51FakeKeyForTheLocalStripe0123456789abcdefABCDEF';

let fake: FakeStripe;
let processor: PaymentProcessor;

const settings = (overrides: Partial<StripeSettings> = {}): StripeSettings => ({
  apiKey: API_KEY,
  host: fake.host,
  port: fake.port,
  protocol: 'http',
  ...overrides,
});

beforeAll(async () => {
  fake = await startFakeStripe(API_KEY);
  processor = stripeProcessor(settings());
});

afterAll(() => fake.close());

beforeEach(() => fake.reset());

const confirm = (overrides: Partial<Parameters<PaymentProcessor['confirm']>[0]> = {}, using = processor) =>
  using.confirm({
    intentId: 'pi_platform_1',
    amount: 1999,
    currency: 'usd',
    captureMethod: 'automatic',
    paymentMethod: { id: 'pm_card_visa' },
    idempotencyKey: 'key-1',
    ...overrides,
  });

/** The ApiError a promise rejects with; fails the test when it resolves or rejects with something else. */
async function apiError(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

/** Everything a caller or a log could see of an error, to look for the key in. */
const visible = (error: ApiError) => `${error.message} ${JSON.stringify(error.details ?? {})} ${JSON.stringify(error.headers ?? {})}`;

/** A port on which nothing listens: bound, then released. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('stripeProcessor: confirm', () => {
  it('creates and confirms a PaymentIntent in one form-encoded request, with the key and the idempotency key', async () => {
    const result = await confirm();
    expect(fake.requests).toHaveLength(1);
    const [request] = fake.requests;
    expect(request!.method).toBe('POST');
    expect(request!.path).toBe('/v1/payment_intents');
    expect(request!.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(request!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(request!.headers['stripe-version']).toBe(Stripe.API_VERSION);
    expect(request!.idempotencyKey).toBe('key-1:confirm');
    expect(request!.form).toEqual({
      amount: '1999',
      currency: 'usd',
      payment_method: 'pm_card_visa',
      confirm: 'true',
      capture_method: 'automatic',
      allowed_payment_method_types: ['card'],
      error_on_requires_action: 'true',
      metadata: { intent: 'pi_platform_1' },
      expand: ['payment_method'],
    });
    const [intent] = fake.intents.values();
    expect(result).toEqual({ outcome: 'succeeded', processorId: intent!.id, card: { brand: 'visa', last4: '4242' } });
    expect(intent).toMatchObject({ status: 'succeeded', amount_received: 1999, metadata: { intent: 'pi_platform_1' } });
  });

  it('holds a manual-capture payment: requires_capture', async () => {
    const result = await confirm({ captureMethod: 'manual', paymentMethod: { id: 'pm_card_mastercard' } });
    expect(fake.requests[0]!.form.capture_method).toBe('manual');
    const [intent] = fake.intents.values();
    expect(result).toEqual({ outcome: 'requires_capture', processorId: intent!.id, card: { brand: 'mastercard', last4: '4444' } });
    expect(intent).toMatchObject({ status: 'requires_capture', amount_capturable: 1999, amount_received: 0 });
  });

  it.each([
    ['pm_card_chargeDeclined', 'card_declined', 'Your card was declined.', '0002'],
    ['pm_card_chargeDeclinedInsufficientFunds', 'insufficient_funds', 'Your card has insufficient funds.', '9995'],
    ['pm_card_chargeDeclinedExpiredCard', 'expired_card', 'Your card has expired.', '0069'],
    ['pm_card_chargeDeclinedProcessingError', 'processing_error', 'An error occurred while processing your card. Try again in a little bit.', '0119'],
    ['pm_card_chargeDeclinedLostCard', 'card_declined', 'Your card was declined.', '9987'],
    // error_on_requires_action turns a 3-D Secure challenge nobody can answer into a decline.
    ['pm_card_authenticationRequired', 'card_declined', 'Your card was declined. This transaction requires authentication.', '3184'],
  ])('answers the 402 card error for %s as declined %s', async (id, code, message, last4) => {
    const result = await confirm({ paymentMethod: { id } });
    expect(result).toEqual({ outcome: 'declined', declineCode: code, message, card: { brand: 'visa', last4 } });
  });

  it('refuses raw card details without calling Stripe: live mode takes payment method ids', async () => {
    const promise = confirm({ paymentMethod: { card: { number: '4242424242424242', expMonth: 12, expYear: 2034, cvc: '123' } } });
    await expect(promise).rejects.toThrow(/card details.*payment method id \(pm_…\)/);
    await expect(promise).rejects.not.toBeInstanceOf(ApiError);
    expect(fake.requests).toEqual([]);
  });

  it("answers a retried confirm from Stripe's idempotency store: one PaymentIntent, one charge", async () => {
    const first = await confirm();
    const again = await confirm();
    expect(again).toEqual(first);
    expect(fake.requests.map((r) => [r.idempotencyKey, r.replayed])).toEqual([
      ['key-1:confirm', false],
      ['key-1:confirm', true],
    ]);
    expect(fake.intents.size).toBe(1);
  });

  it('replays a decline for the same key too, as Stripe does', async () => {
    const first = await confirm({ paymentMethod: { id: 'pm_card_chargeDeclinedInsufficientFunds' } });
    expect(await confirm({ paymentMethod: { id: 'pm_card_chargeDeclinedInsufficientFunds' } })).toEqual(first);
    expect(fake.requests[1]!.replayed).toBe(true);
  });

  it('throws when Stripe refuses a key reused for another request (why each operation gets its own suffix)', async () => {
    await confirm({ idempotencyKey: 'reused' });
    const error = await apiError(confirm({ idempotencyKey: 'reused', amount: 2500 }));
    expect(error.code).toBe('provider_failed');
    expect(error.details).toMatchObject({ upstreamStatus: 400 });
    expect(error.cause).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
    expect(fake.intents.size).toBe(1);
  });

  it('lets the SDK key the request when the platform call has no key', async () => {
    await confirm({ idempotencyKey: undefined });
    expect(fake.requests[0]!.idempotencyKey).toMatch(/^stripe-node-retry-/);
  });

  it('reports an intent left in a state it cannot complete as provider_failed', async () => {
    fake.override = () => ({
      status: 200,
      body: { id: 'pi_processing', object: 'payment_intent', amount: 1999, amount_received: 0, currency: 'usd', status: 'processing', payment_method: null },
    });
    const error = await apiError(confirm());
    expect(error.code).toBe('provider_failed');
    expect(error.details).toMatchObject({ processorId: 'pi_processing', stripeStatus: 'processing' });
  });
});

describe('stripeProcessor: capture, cancel, refund', () => {
  it('captures the amount, with the key suffixed for the capture', async () => {
    const held = await confirm({ captureMethod: 'manual' });
    if (held.outcome !== 'requires_capture') throw new Error('expected a held payment');
    await processor.capture({ intentId: 'pi_platform_1', processorId: held.processorId, amount: 1500, idempotencyKey: 'key-1' });
    const capture = fake.requests[1]!;
    expect(capture.path).toBe(`/v1/payment_intents/${held.processorId}/capture`);
    expect(capture.form).toEqual({ amount_to_capture: '1500' });
    expect(capture.idempotencyKey).toBe('key-1:capture');
    expect(fake.intents.get(held.processorId)).toMatchObject({ status: 'succeeded', amount_received: 1500 });
  });

  it('cancels a held payment', async () => {
    const held = await confirm({ captureMethod: 'manual' });
    if (held.outcome !== 'requires_capture') throw new Error('expected a held payment');
    await processor.cancel({ intentId: 'pi_platform_1', processorId: held.processorId, idempotencyKey: 'key-2' });
    const cancel = fake.requests[1]!;
    expect(cancel.path).toBe(`/v1/payment_intents/${held.processorId}/cancel`);
    expect(cancel.idempotencyKey).toBe('key-2:cancel');
    expect(fake.intents.get(held.processorId)).toMatchObject({ status: 'canceled' });
  });

  it("refunds part of a payment and returns Stripe's refund id", async () => {
    const paid = await confirm();
    if (paid.outcome !== 'succeeded') throw new Error('expected a payment');
    const refund = await processor.refund({
      intentId: 'pi_platform_1',
      processorId: paid.processorId,
      amount: 500,
      refundId: 're_platform_1',
      idempotencyKey: 'key-3',
    });
    const request = fake.requests[1]!;
    expect(request.path).toBe('/v1/refunds');
    expect(request.form).toEqual({ payment_intent: paid.processorId, amount: '500', metadata: { refund: 're_platform_1' } });
    expect(request.idempotencyKey).toBe('key-3:refund');
    expect(refund.processorId).toMatch(/^re_/);
    expect(fake.refunds.get(refund.processorId)).toMatchObject({ amount: 500, payment_intent: paid.processorId, status: 'succeeded' });
  });

  it('keeps one platform key used for several operations apart, so Stripe never sees it reused', async () => {
    const held = await confirm({ captureMethod: 'manual', idempotencyKey: 'same' });
    if (held.outcome !== 'requires_capture') throw new Error('expected a held payment');
    await processor.capture({ intentId: 'pi_platform_1', processorId: held.processorId, amount: 1999, idempotencyKey: 'same' });
    await processor.refund({ intentId: 'pi_platform_1', processorId: held.processorId, amount: 1999, refundId: 're_1', idempotencyKey: 'same' });
    expect(fake.requests.map((r) => [r.path.replace(held.processorId, ':id'), r.idempotencyKey, r.replayed])).toEqual([
      ['/v1/payment_intents', 'same:confirm', false],
      ['/v1/payment_intents/:id/capture', 'same:capture', false],
      ['/v1/refunds', 'same:refund', false],
    ]);
  });

  it('retries a refund with the same key without refunding twice', async () => {
    const paid = await confirm();
    if (paid.outcome !== 'succeeded') throw new Error('expected a payment');
    const input = { intentId: 'pi_platform_1', processorId: paid.processorId, amount: 1999, refundId: 're_1', idempotencyKey: 'key-4' };
    const first = await processor.refund(input);
    expect(await processor.refund(input)).toEqual(first);
    expect(fake.refunds.size).toBe(1);
  });

  it('reports Stripe refusing an operation (capturing a payment that is not held) as provider_failed', async () => {
    const paid = await confirm();
    if (paid.outcome !== 'succeeded') throw new Error('expected a payment');
    const error = await apiError(processor.capture({ intentId: 'pi_platform_1', processorId: paid.processorId, amount: 1999, idempotencyKey: 'key-5' }));
    expect(error.code).toBe('provider_failed');
    expect(shippedStatus(error)).toBe(502);
    expect(error.details).toMatchObject({
      upstreamStatus: 400,
      stripeCode: 'payment_intent_unexpected_state',
      stripeRequestId: expect.stringMatching(/^req_/),
    });
    expect(error.details!.upstreamMessage).toMatch(/status of succeeded/);
    expect(error.cause).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
  });

  it('reports a refund Stripe marks failed as provider_failed', async () => {
    fake.override = (request) =>
      request.path === '/v1/refunds'
        ? { status: 200, body: { id: 're_failed', object: 'refund', amount: 1, currency: 'usd', status: 'failed', failure_reason: 'expired_or_canceled_card' } }
        : undefined;
    const error = await apiError(processor.refund({ intentId: 'pi_platform_1', processorId: 'pi_x', amount: 1, refundId: 're_1' }));
    expect(error.code).toBe('provider_failed');
    expect(error.details).toMatchObject({ processorId: 're_failed', stripeStatus: 'failed', reason: 'expired_or_canceled_card' });
  });
});

describe('stripeProcessor: idempotency keys', () => {
  it.each([
    ['key-1', 'confirm', 'key-1:confirm'],
    ['k', 'refund', 'k:refund'],
    ['x'.repeat(247), 'confirm', `${'x'.repeat(247)}:confirm`],
  ])('forwards %j for %s as %j', (key, operation, expected) => {
    expect(stripeIdempotencyKey(key, operation)).toBe(expected);
  });

  it("hashes a key that would pass Stripe's 255 characters once suffixed, stably", async () => {
    const long = 'k'.repeat(255);
    const forwarded = stripeIdempotencyKey(long, 'capture');
    expect(forwarded).toMatch(/^[0-9a-f]{64}:capture$/);
    expect(stripeIdempotencyKey(long, 'capture')).toBe(forwarded);
    expect(stripeIdempotencyKey(long, 'refund')).not.toBe(forwarded);
    await confirm({ idempotencyKey: long });
    expect(fake.requests[0]!.idempotencyKey).toBe(stripeIdempotencyKey(long, 'confirm'));
  });
});

describe('stripeProcessor: failures', () => {
  it.each([
    [500, 'provider_failed', 502, { type: 'api_error', message: 'An unknown error occurred' }],
    [502, 'provider_unavailable', 503, { type: 'api_error', message: 'Bad gateway' }],
    [503, 'provider_unavailable', 503, { type: 'api_error', message: 'Stripe is temporarily unavailable' }],
    [429, 'provider_unavailable', 503, { type: 'invalid_request_error', code: 'rate_limit', message: 'Too many requests hit the API too quickly.' }],
    [
      409,
      'provider_failed',
      502,
      {
        type: 'invalid_request_error',
        code: 'lock_timeout',
        message: 'This object cannot be accessed right now because another API request or Stripe process is currently accessing it.',
      },
    ],
  ])("throws Stripe's HTTP %i as %s (%i), keeping the cause", async (status, code, apiStatus, body) => {
    fake.override = () => ({ status, body: { error: body } });
    const error = await apiError(confirm());
    expect(error.code).toBe(code);
    expect(shippedStatus(error)).toBe(apiStatus);
    expect(error.details).toMatchObject({ upstreamStatus: status });
    expect(error.cause).toBeInstanceOf(Stripe.errors.StripeError);
    expect(visible(error)).not.toContain(API_KEY);
    // No SDK retries: the platform's client retries, with the same key.
    expect(fake.requests).toHaveLength(1);
  });

  it("throws a refused key as provider_failed without Stripe's message, which quotes the key", async () => {
    const wrong = stripeProcessor(settings({ apiKey: 'sk_test_51WrongKeyWrongKeyWrongKey9876' }));
    const error = await apiError(confirm({}, wrong));
    expect(error.code).toBe('provider_failed');
    expect(error.message).toMatch(/STRIPE_API_KEY/);
    expect(error.cause).toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
    expect(visible(error)).not.toMatch(/sk_test|9876/);
  });

  it('removes the key from a Stripe message that quotes it', async () => {
    fake.override = () => ({
      status: 400,
      body: { error: { type: 'invalid_request_error', message: `The key ${API_KEY} cannot do that; nor can rk_live_abc123.` } },
    });
    const error = await apiError(confirm());
    expect(error.details!.upstreamMessage).toBe('The key [redacted] cannot do that; nor can [redacted].');
    expect(visible(error)).not.toContain(API_KEY);
  });

  it('throws an unreachable Stripe as provider_unavailable, at once and without the key', async () => {
    const down = stripeProcessor(settings({ port: await closedPort() }));
    const error = await apiError(confirm({}, down));
    expect(error.code).toBe('provider_unavailable');
    expect(error.details).toMatchObject({ reason: 'ECONNREFUSED' });
    expect(error.cause).toBeInstanceOf(Stripe.errors.StripeConnectionError);
    expect(visible(error)).not.toContain(API_KEY);
  });

  it('gives up on a Stripe that does not answer within the time-out', async () => {
    fake.override = () => 'hang';
    const slow = stripeProcessor(settings({ timeoutMs: 200 }));
    const error = await apiError(confirm({}, slow));
    expect(error.code).toBe('provider_unavailable');
    expect(error.message).toBe('Stripe did not answer within 200 ms.');
  });

  it("stops waiting when the caller gives up, with the caller's own reason", async () => {
    fake.override = () => 'hang';
    const controller = new AbortController();
    const reason = new Error('caller gone');
    const pending = confirm({ signal: controller.signal }, stripeProcessor(settings({ timeoutMs: 2_000 })));
    while (fake.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });

  it('sends nothing once the caller has given up', async () => {
    const controller = new AbortController();
    controller.abort(new Error('caller gone'));
    await expect(confirm({ signal: controller.signal })).rejects.toThrow('caller gone');
    await expect(processor.capture({ intentId: 'pi_1', processorId: 'pi_x', amount: 1, signal: controller.signal })).rejects.toThrow('caller gone');
    await expect(processor.cancel({ intentId: 'pi_1', processorId: 'pi_x', signal: controller.signal })).rejects.toThrow('caller gone');
    await expect(processor.refund({ intentId: 'pi_1', processorId: 'pi_x', amount: 1, refundId: 're_1', signal: controller.signal })).rejects.toThrow(
      'caller gone',
    );
    expect(fake.requests).toEqual([]);
  });
});

describe('declineCode', () => {
  it.each([
    ['card_declined', 'generic_decline', 'card_declined'],
    ['card_declined', 'insufficient_funds', 'insufficient_funds'],
    ['card_declined', 'lost_card', 'card_declined'],
    ['card_declined', 'do_not_honor', 'card_declined'],
    ['expired_card', undefined, 'expired_card'],
    ['processing_error', undefined, 'processing_error'],
    ['incorrect_cvc', undefined, 'card_declined'],
    ['authentication_required', 'authentication_required', 'card_declined'],
    [undefined, undefined, 'card_declined'],
  ])('code %s with decline code %s is %s', (code, issuer, expected) => {
    expect(declineCode(code, issuer)).toBe(expected);
  });
});

describe('stripeSettingsFromEnv', () => {
  it.each([
    [{}, undefined],
    [{ STRIPE_API_KEY: '  ' }, undefined],
    [{ STRIPE_API_KEY: API_KEY }, { apiKey: API_KEY }],
    [{ STRIPE_API_KEY: 'rk_live_abc', STRIPE_API_BASE: '' }, { apiKey: 'rk_live_abc' }],
    [
      { STRIPE_API_KEY: API_KEY, STRIPE_API_BASE: 'http://127.0.0.1:12111' },
      { apiKey: API_KEY, host: '127.0.0.1', port: 12111, protocol: 'http' },
    ],
    [
      { STRIPE_API_KEY: API_KEY, STRIPE_API_BASE: 'https://stripe.internal/' },
      { apiKey: API_KEY, host: 'stripe.internal', port: 443, protocol: 'https' },
    ],
    [
      { STRIPE_API_KEY: API_KEY, STRIPE_API_BASE: 'http://localhost' },
      { apiKey: API_KEY, host: 'localhost', port: 80, protocol: 'http' },
    ],
  ])('reads %j as %j', (env, expected) => {
    expect(stripeSettingsFromEnv(env)).toEqual(expected);
  });

  it.each([
    [{ STRIPE_API_KEY: 'pk_test_publishable123' }, /STRIPE_API_KEY must be a secret key/, 'publishable123'],
    [{ STRIPE_API_KEY: 'not-a-key-at-all' }, /STRIPE_API_KEY must be a secret key/, 'not-a-key'],
    [{ STRIPE_API_BASE: 'http://127.0.0.1:12111' }, /STRIPE_API_BASE is set but STRIPE_API_KEY is not/, undefined],
    [{ STRIPE_API_KEY: API_KEY, STRIPE_API_BASE: 'not a url secret123' }, /STRIPE_API_BASE is not a valid URL/, 'secret123'],
    [{ STRIPE_API_KEY: API_KEY, STRIPE_API_BASE: 'ftp://127.0.0.1' }, /must be an http or https URL, not ftp:/, undefined],
    [{ STRIPE_API_KEY: API_KEY, STRIPE_API_BASE: 'http://127.0.0.1:12111/v1' }, /bare origin/, undefined],
    [{ STRIPE_API_KEY: API_KEY, STRIPE_API_BASE: 'http://user:hunter2@127.0.0.1:12111' }, /bare origin/, 'hunter2'],
  ])('refuses %j, naming the variable without echoing its value', (env, message, secret) => {
    let thrown: unknown;
    try {
      stripeSettingsFromEnv(env);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect((thrown as Error).message).toMatch(message);
    if (secret) expect((thrown as Error).message).not.toContain(secret);
    expect((thrown as Error).message).not.toContain(API_KEY);
  });

  it('makes a processor that reaches the configured base', async () => {
    const fromEnv = stripeSettingsFromEnv({ STRIPE_API_KEY: API_KEY, STRIPE_API_BASE: fake.url })!;
    expect(await confirm({}, stripeProcessor(fromEnv))).toMatchObject({ outcome: 'succeeded' });
  });
});
