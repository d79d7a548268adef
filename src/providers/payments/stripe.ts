/**
 * The live-mode payment processor: Stripe, through its official SDK. A confirm is one request that creates
 * and confirms a PaymentIntent, so a retried platform call maps to one Stripe idempotency key and one charge.
 * Card declines are answers (`declined`), not failures; every other Stripe failure becomes the API's provider
 * errors: 503 when trying again later may help (unreachable, rate-limited, overloaded), 502 otherwise. No
 * message ever carries the API key.
 */
import { createHash } from 'node:crypto';
import Stripe from 'stripe';
import { ApiError } from '../../core/errors.js';
import type { Authorization, CardSummary, DeclineCode, PaymentProcessor } from './processor.js';
import type { StripeSettings } from './stripe-settings.js';

export { stripeSettingsFromEnv, type StripeSettings } from './stripe-settings.js';

// Well under Stripe's 80 s default: the platform's own call time-out is shorter, and its client retries.
const DEFAULT_TIMEOUT_MS = 30_000;
// Stripe refuses longer idempotency keys.
const MAX_IDEMPOTENCY_KEY = 255;
const MAX_UPSTREAM_MESSAGE = 500;

/** Creates a processor that charges through Stripe's PaymentIntents and Refunds APIs. */
export function stripeProcessor(settings: StripeSettings): PaymentProcessor {
  const stripe = new Stripe(settings.apiKey, {
    // The platform's client retries with the same idempotency key; SDK retries would only stack delays on it.
    maxNetworkRetries: 0,
    timeout: settings.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    ...(settings.host !== undefined ? { host: settings.host } : {}),
    ...(settings.port !== undefined ? { port: settings.port } : {}),
    ...(settings.protocol !== undefined ? { protocol: settings.protocol } : {}),
    appInfo: { name: 'unified-dispatch' },
  });
  const failed = (error: unknown) => providerError(error, settings.apiKey, settings.timeoutMs ?? DEFAULT_TIMEOUT_MS);

  return {
    async confirm(input) {
      if ('card' in input.paymentMethod) {
        throw new Error(
          'Live mode does not take card details: collect the card with Stripe (Elements or a SetupIntent) and pass its payment method id (pm_…).',
        );
      }
      const paymentMethod = input.paymentMethod.id;
      let intent: Stripe.PaymentIntent;
      try {
        intent = await bounded(input.signal, () =>
          stripe.paymentIntents.create(
            {
              amount: input.amount,
              currency: input.currency,
              payment_method: paymentMethod,
              confirm: true,
              capture_method: input.captureMethod,
              // Cards only, and no redirect: without these Stripe wants a return_url, and a card that needs
              // 3-D Secure would wait in requires_action for a customer this API never sees.
              allowed_payment_method_types: ['card'],
              error_on_requires_action: true,
              metadata: { intent: input.intentId },
              expand: ['payment_method'],
            },
            requestOptions(input.idempotencyKey, 'confirm'),
          ),
        );
      } catch (error) {
        if (isCardError(error)) return decline(error);
        throw failed(error);
      }
      return authorization(intent);
    },

    async capture(input) {
      try {
        await bounded(input.signal, () =>
          stripe.paymentIntents.capture(input.processorId, { amount_to_capture: input.amount }, requestOptions(input.idempotencyKey, 'capture')),
        );
      } catch (error) {
        throw failed(error);
      }
    },

    async cancel(input) {
      try {
        await bounded(input.signal, () => stripe.paymentIntents.cancel(input.processorId, {}, requestOptions(input.idempotencyKey, 'cancel')));
      } catch (error) {
        throw failed(error);
      }
    },

    async refund(input) {
      let refund: Stripe.Refund;
      try {
        refund = await bounded(input.signal, () =>
          stripe.refunds.create(
            { payment_intent: input.processorId, amount: input.amount, metadata: { refund: input.refundId } },
            requestOptions(input.idempotencyKey, 'refund'),
          ),
        );
      } catch (error) {
        throw failed(error);
      }
      if (refund.status === 'failed' || refund.status === 'canceled') {
        throw new ApiError('provider_failed', `Stripe did not refund the payment (refund ${refund.id} is ${refund.status}).`, {
          details: { processorId: refund.id, stripeStatus: refund.status, ...(refund.failure_reason ? { reason: refund.failure_reason } : {}) },
        });
      }
      return { processorId: refund.id };
    },
  };
}

/**
 * Stripe scopes a key to one request body, so one platform key used for a confirm and then a capture would
 * be refused as reused: each operation gets its own suffix. A key too long for Stripe once suffixed is
 * hashed, which keeps it stable across the platform's retries.
 */
export function stripeIdempotencyKey(key: string, operation: string): string {
  const scoped = `${key}:${operation}`;
  if (scoped.length <= MAX_IDEMPOTENCY_KEY) return scoped;
  return `${createHash('sha256').update(key).digest('hex')}:${operation}`;
}

function requestOptions(key: string | undefined, operation: string): Stripe.RequestOptions {
  // Without a platform key the SDK sends a random one of its own, which still guards its own reconnects.
  return key === undefined ? {} : { idempotencyKey: stripeIdempotencyKey(key, operation) };
}

/**
 * Runs one SDK request until it settles or the caller's signal fires, whichever is first. The SDK cannot be
 * told to abort, so an abandoned request runs on to its time-out; the idempotency key makes the caller's
 * retry safe whether or not Stripe acted on it.
 */
async function bounded<T>(signal: AbortSignal | undefined, request: () => Promise<T>): Promise<T> {
  if (!signal) return request();
  signal.throwIfAborted();
  let onAbort!: () => void;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([request(), aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

function authorization(intent: Stripe.PaymentIntent): Authorization {
  const card = cardOf(intent.payment_method);
  const status = intent.status;
  if (status === 'succeeded' || status === 'requires_capture') {
    return { outcome: status as 'succeeded' | 'requires_capture', processorId: intent.id, ...(card ? { card } : {}) };
  }
  // A confirm either ends in one of the two states above or fails with a card error; anything else (a
  // `processing` payment, say) is a state this API has no answer for yet, and is reported, not guessed at.
  throw new ApiError('provider_failed', `Stripe left the payment in state "${status}", which this API cannot complete.`, {
    details: { processorId: intent.id, stripeStatus: status },
  });
}

function isCardError(error: unknown): error is InstanceType<typeof Stripe.errors.StripeCardError> {
  return error instanceof Stripe.errors.StripeCardError && error.rawType === 'card_error';
}

function decline(error: InstanceType<typeof Stripe.errors.StripeCardError>): Authorization {
  const card = cardOf(error.payment_method);
  return {
    outcome: 'declined',
    declineCode: declineCode(error.code, error.decline_code),
    // Stripe writes card-error messages to be shown to the paying customer.
    message: error.message || 'Your card was declined.',
    ...(card ? { card } : {}),
  };
}

/** Stripe's error code and issuer decline code, folded into the four decline codes of docs/contract.md § Errors. */
export function declineCode(code: string | undefined, issuerCode: string | undefined): DeclineCode {
  if (code === 'insufficient_funds' || issuerCode === 'insufficient_funds') return 'insufficient_funds';
  if (code === 'expired_card' || issuerCode === 'expired_card') return 'expired_card';
  if (code === 'processing_error' || issuerCode === 'processing_error') return 'processing_error';
  return 'card_declined';
}

function cardOf(method: string | Stripe.PaymentMethod | null | undefined): CardSummary | undefined {
  const card = typeof method === 'object' && method !== null ? method.card : undefined;
  return card ? { brand: card.brand, last4: card.last4 } : undefined;
}

/** A failed SDK call as the API's provider error; anything that is not Stripe's (the caller's abort) passes untouched. */
/** Stripe's request parameters that stand for a field of the caller's payload. */
const PAYLOAD_FIELDS: Record<string, string> = { amount: '/payload/amount', amount_to_capture: '/payload/amountToCapture', currency: '/payload/currency', payment_method: '/payload/paymentMethod' };

/**
 * A request Stripe refused for what the caller sent (an amount below its minimum, a currency it does not
 * take, an unknown payment method) is the caller's to fix: a 400 at the field, not the platform's 502.
 */
function callerMistake(error: InstanceType<typeof Stripe.errors.StripeError>, apiKey: string): ApiError | undefined {
  if (!(error instanceof Stripe.errors.StripeInvalidRequestError) || error.param === undefined) return undefined;
  const param = PAYLOAD_FIELDS[error.param];
  if (!param) return undefined;
  const message = redact(error.message ?? `Stripe refused ${error.param}.`, apiKey);
  const details = { errors: [{ param, message, keyword: 'processor' }], ...(error.code ? { stripeCode: error.code } : {}) };
  if (param === '/payload/paymentMethod') return new ApiError('payment_method_invalid', message, { param, details, cause: error });
  return new ApiError('payload_invalid', `${param}: ${message}`, { param, details, cause: error });
}

function providerError(error: unknown, apiKey: string, timeoutMs: number): unknown {
  if (!(error instanceof Stripe.errors.StripeError)) return error;
  const base = {
    ...(error.statusCode !== undefined ? { upstreamStatus: error.statusCode } : {}),
    ...(error.requestId ? { stripeRequestId: error.requestId } : {}),
  };
  if (error instanceof Stripe.errors.StripeConnectionError) {
    const reason = (error.detail as { code?: unknown } | undefined)?.code;
    if (reason === 'ETIMEDOUT') {
      return new ApiError('provider_unavailable', `Stripe did not answer within ${timeoutMs} ms.`, { details: { timeoutMs }, cause: error });
    }
    return new ApiError('provider_unavailable', 'Stripe could not be reached.', {
      details: { ...base, ...(typeof reason === 'string' ? { reason } : {}) },
      cause: error,
    });
  }
  if (error instanceof Stripe.errors.StripeRateLimitError || (error.statusCode !== undefined && error.statusCode >= 502)) {
    return new ApiError('provider_unavailable', `Stripe is busy (HTTP ${error.statusCode}); try again later.`, { details: base, cause: error });
  }
  const refused = callerMistake(error, apiKey);
  if (refused) return refused;
  if (error instanceof Stripe.errors.StripeAuthenticationError || error instanceof Stripe.errors.StripePermissionError) {
    // Stripe quotes (part of) the key in these messages, so theirs is not passed on.
    return new ApiError('provider_failed', `Stripe refused the configured API key (HTTP ${error.statusCode}); check STRIPE_API_KEY.`, {
      details: base,
      cause: error,
    });
  }
  return new ApiError('provider_failed', `Stripe answered with HTTP ${error.statusCode ?? 'error'}.`, {
    details: {
      ...base,
      ...(error.code ? { stripeCode: error.code } : {}),
      ...(error.message ? { upstreamMessage: redact(error.message, apiKey) } : {}),
    },
    cause: error,
  });
}

/** Removes the key, and anything shaped like a Stripe key, before a Stripe message reaches callers. */
function redact(message: string, apiKey: string): string {
  const clean = message.replaceAll(apiKey, '[redacted]').replace(/\b(sk|rk|pk)_(test|live)_[\w*]+/g, '[redacted]');
  const chars = Array.from(clean);
  return chars.length > MAX_UPSTREAM_MESSAGE ? `${chars.slice(0, MAX_UPSTREAM_MESSAGE - 1).join('')}…` : clean;
}
