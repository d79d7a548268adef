/**
 * A stand-in for Stripe's API for tests: a real HTTP server on 127.0.0.1 that speaks Stripe's wire format
 * (form-encoded requests with bracketed keys, Bearer keys, `Idempotency-Key`, JSON objects and error bodies
 * shaped like Stripe's), so the official SDK runs unchanged against it and no Stripe account is needed.
 * It keeps the PaymentIntents and Refunds it made, enforces their state rules, answers Stripe's test payment
 * methods (`pm_card_…`) with Stripe's own declines, and replays a repeated idempotency key as Stripe does.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A decoded form body: `metadata[intent]=x&expand[0]=y` is `{metadata: {intent: 'x'}, expand: ['y']}`. */
export type Form = { [key: string]: FormValue };
export type FormValue = string | FormValue[] | Form;

export interface StripeRequest {
  method: string;
  /** The path without the query, e.g. `/v1/payment_intents`. */
  path: string;
  headers: IncomingHttpHeaders;
  idempotencyKey: string | undefined;
  form: Form;
  /** Answered from the idempotency store rather than executed. */
  replayed: boolean;
}

/**
 * What the fake answers instead of the API: a status and body, `hang` to never answer, or `delayMs` to answer
 * as the API does but late. A late answer's work is done, and its idempotent result saved, when the request
 * arrives; until it is sent, another request with the same key gets Stripe's 409 (still in progress).
 */
export type Override = { status: number; body: unknown; headers?: Record<string, string> } | 'hang' | { delayMs: number };

export interface FakeStripe {
  /** `http://127.0.0.1:<port>`, the form `STRIPE_API_BASE` takes. */
  url: string;
  host: string;
  port: number;
  requests: StripeRequest[];
  /** The PaymentIntents and Refunds made so far, by id, as Stripe would return them. */
  intents: Map<string, Record<string, any>>;
  refunds: Map<string, Record<string, any>>;
  /** Consulted before the API answers; return undefined to let it answer. */
  override: (request: StripeRequest) => Override | undefined;
  /** Resolves once every late answer (`delayMs`) has been sent. */
  settled(): Promise<void>;
  /** Forgets requests, objects and idempotency keys, and the override. */
  reset(): void;
  close(): Promise<void>;
}

interface Answer {
  status: number;
  body: unknown;
  /** Stripe saves an idempotent result once the endpoint has started executing, not for refused requests. */
  keep: boolean;
}

interface TestCard {
  brand: string;
  last4: string;
  /** The card error Stripe answers when it is charged. */
  error?: { code: string; decline_code?: string; message: string };
  /** Needs 3-D Secure: a `requires_action` intent, or an error with `error_on_requires_action`. */
  authentication?: boolean;
}

const declining = (last4: string, code: string, decline_code: string, message = 'Your card was declined.'): TestCard => ({
  brand: 'visa',
  last4,
  error: { code, decline_code, message },
});

/** Stripe's test payment methods, with the declines Stripe documents for them. */
const TEST_CARDS: Record<string, TestCard> = {
  pm_card_visa: { brand: 'visa', last4: '4242' },
  pm_card_mastercard: { brand: 'mastercard', last4: '4444' },
  pm_card_amex: { brand: 'amex', last4: '8431' },
  pm_card_chargeDeclined: declining('0002', 'card_declined', 'generic_decline'),
  pm_card_chargeDeclinedInsufficientFunds: declining('9995', 'card_declined', 'insufficient_funds', 'Your card has insufficient funds.'),
  pm_card_chargeDeclinedLostCard: declining('9987', 'card_declined', 'lost_card'),
  pm_card_chargeDeclinedExpiredCard: declining('0069', 'expired_card', 'expired_card', 'Your card has expired.'),
  pm_card_chargeDeclinedProcessingError: declining(
    '0119',
    'processing_error',
    'processing_error',
    'An error occurred while processing your card. Try again in a little bit.',
  ),
  pm_card_authenticationRequired: { brand: 'visa', last4: '3184', authentication: true },
};

// The parameters each endpoint takes (the ones this API could send); Stripe refuses any other by name.
const CREATE_PARAMS = new Set(
  'amount currency payment_method confirm capture_method allowed_payment_method_types error_on_requires_action metadata expand'.split(' '),
);
const CAPTURE_PARAMS = new Set(['amount_to_capture', 'expand', 'metadata']);
const CANCEL_PARAMS = new Set(['cancellation_reason', 'expand']);
const REFUND_PARAMS = new Set(['payment_intent', 'amount', 'metadata', 'reason', 'expand']);

/** Starts the fake; every request must carry `Authorization: Bearer <apiKey>`. */
export async function startFakeStripe(apiKey: string): Promise<FakeStripe> {
  let idempotent = new Map<string, { fingerprint: string; answer: Answer }>();
  let counter = 0;
  const held: ServerResponse[] = [];
  /** The keys whose requests are answered late and not yet, with when each will have been. */
  const inProgress = new Set<string>();
  const late = new Set<Promise<void>>();
  const nextId = (prefix: string) => `${prefix}_${(++counter).toString(36).padStart(8, '0')}${randomBytes(8).toString('hex')}`;
  const now = () => Math.floor(Date.now() / 1000);

  const server = createServer(async (req, res) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const url = new URL(req.url!, 'http://stripe.invalid');
    const header = req.headers['idempotency-key'];
    const key = typeof header === 'string' ? header : undefined;
    const request: StripeRequest = {
      method: req.method!,
      path: url.pathname,
      headers: req.headers,
      idempotencyKey: key,
      form: parseForm(raw),
      replayed: false,
    };
    fake.requests.push(request);
    const requestId = `req_${randomBytes(7).toString('hex')}`;
    const version = req.headers['stripe-version'];
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, {
        'Content-Type': 'application/json',
        'Request-Id': requestId,
        ...(typeof version === 'string' ? { 'Stripe-Version': version } : {}),
        ...headers,
      });
      res.end(JSON.stringify(body, null, 2));
    };

    const overridden = fake.override(request);
    if (overridden === 'hang') {
      held.push(res);
      return;
    }
    if (overridden && 'status' in overridden) return send(overridden.status, overridden.body, overridden.headers);

    const refused = checkRequest(req.headers, raw, apiKey);
    if (refused) return send(refused.status, refused.body);

    if (key !== undefined && inProgress.has(key)) {
      const message = `There is currently another in-progress request using this Idempotent Key (that probably means you submitted twice, and the other request is still going through): ${key}. Please try again later.`;
      return send(409, errorBody('invalid_request_error', message, { code: 'idempotency_key_in_use', doc_url: 'https://stripe.com/docs/error-codes/idempotency-key-in-use' }));
    }
    // Stripe scopes a key to the account and compares the request it first came with.
    const fingerprint = `${request.method} ${request.path} ${raw}`;
    const saved = key === undefined ? undefined : idempotent.get(key);
    if (saved) {
      if (saved.fingerprint !== fingerprint) {
        return send(
          400,
          errorBody(
            'idempotency_error',
            `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
          ),
        );
      }
      request.replayed = true;
      return send(saved.answer.status, saved.answer.body, { 'Idempotent-Replayed': 'true', 'Idempotency-Key': key! });
    }
    const answer = route(request);
    if (key !== undefined && answer.keep) idempotent.set(key, { fingerprint, answer });
    const answered = () => send(answer.status, answer.body, key === undefined ? {} : { 'Idempotency-Key': key });
    if (!overridden) return answered();
    if (key !== undefined) inProgress.add(key);
    const sent: Promise<void> = new Promise<void>((resolve) => setTimeout(resolve, overridden.delayMs)).then(() => {
      if (key !== undefined) inProgress.delete(key);
      late.delete(sent);
      answered();
    });
    late.add(sent);
  });

  function route(request: StripeRequest): Answer {
    const { method, path, form } = request;
    if (method === 'POST' && path === '/v1/payment_intents') return createIntent(form);
    const action = /^\/v1\/payment_intents\/([^/]+)\/(capture|cancel)$/.exec(path);
    if (method === 'POST' && action) return action[2] === 'capture' ? captureIntent(action[1]!, form) : cancelIntent(action[1]!, form);
    if (method === 'POST' && path === '/v1/refunds') return createRefund(form);
    return refuse(
      404,
      'invalid_request_error',
      `Unrecognized request URL (${method}: ${path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`,
    );
  }

  function createIntent(form: Form): Answer {
    const unknown = unknownParameter(form, CREATE_PARAMS);
    if (unknown) return unknown;
    const amount = integer(form.amount);
    if (amount === undefined || amount < 1) return invalidParam('amount', `Invalid integer: ${String(form.amount)}`, 'parameter_invalid_integer');
    if (typeof form.currency !== 'string' || !/^[a-z]{3}$/.test(form.currency))
      return invalidParam('currency', `Invalid currency: ${String(form.currency)}.`, 'parameter_invalid_string_empty');
    const captureMethod = form.capture_method ?? 'automatic';
    if (captureMethod !== 'automatic' && captureMethod !== 'automatic_async' && captureMethod !== 'manual') {
      return invalidParam('capture_method', `Invalid capture_method: must be one of automatic, automatic_async, or manual`, 'parameter_invalid_string_empty');
    }
    const metadata = form.metadata ?? {};
    if (typeof metadata !== 'object' || Array.isArray(metadata) || Object.values(metadata).some((v) => typeof v !== 'string')) {
      return invalidParam('metadata', 'Invalid object', 'parameter_invalid_string_empty');
    }
    const confirm = form.confirm === 'true';
    const methodId = form.payment_method;
    if (confirm && typeof methodId !== 'string') {
      return invalidParam('payment_method', "You cannot confirm this PaymentIntent because it's missing a payment method.", 'payment_intent_unexpected_state');
    }
    const card = typeof methodId === 'string' ? TEST_CARDS[methodId] : undefined;
    if (typeof methodId === 'string' && !card) return missing('payment_method', methodId, 'payment_method');
    const types = form.allowed_payment_method_types;
    if (types !== undefined && (!Array.isArray(types) || !types.includes('card'))) {
      return invalidParam(
        'payment_method',
        'The PaymentMethod provided (card) is not allowed for this PaymentIntent.',
        'payment_intent_incompatible_payment_method',
      );
    }
    const expand = expansions(form);
    const intent: Record<string, any> = {
      id: nextId('pi'),
      object: 'payment_intent',
      amount,
      amount_capturable: 0,
      amount_received: 0,
      capture_method: captureMethod,
      client_secret: '',
      confirmation_method: 'automatic',
      created: now(),
      currency: form.currency,
      last_payment_error: null,
      latest_charge: null,
      livemode: false,
      metadata,
      payment_method: typeof methodId === 'string' ? methodId : null,
      payment_method_types: ['card'],
      status: typeof methodId === 'string' ? 'requires_confirmation' : 'requires_payment_method',
      canceled_at: null,
      cancellation_reason: null,
    };
    intent.client_secret = `${intent.id}_secret_${randomBytes(12).toString('hex')}`;
    fake.intents.set(intent.id, intent);
    if (!confirm || !card) return { status: 200, body: view(intent, expand), keep: true };

    if (card.authentication) {
      if (form.error_on_requires_action === 'true') {
        return declined(intent, methodId as string, card, {
          code: 'authentication_required',
          decline_code: 'authentication_required',
          message: 'Your card was declined. This transaction requires authentication.',
        });
      }
      intent.status = 'requires_action';
      intent.next_action = { type: 'use_stripe_sdk', use_stripe_sdk: {} };
      return { status: 200, body: view(intent, expand), keep: true };
    }
    if (card.error) return declined(intent, methodId as string, card, card.error);
    intent.latest_charge = nextId('ch');
    if (captureMethod === 'manual') {
      intent.status = 'requires_capture';
      intent.amount_capturable = amount;
    } else {
      intent.status = 'succeeded';
      intent.amount_received = amount;
    }
    return { status: 200, body: view(intent, expand), keep: true };
  }

  /** Stripe's 402 for a declined confirm: the intent goes back to requires_payment_method. */
  function declined(intent: Record<string, any>, methodId: string, card: TestCard, error: NonNullable<TestCard['error']>): Answer {
    const charge = nextId('ch');
    const lastPaymentError = {
      type: 'card_error',
      charge,
      code: error.code,
      ...(error.decline_code ? { decline_code: error.decline_code } : {}),
      doc_url: `https://stripe.com/docs/error-codes/${error.code.replaceAll('_', '-')}`,
      message: error.message,
      payment_method: paymentMethod(methodId, card),
    };
    Object.assign(intent, { status: 'requires_payment_method', latest_charge: charge, last_payment_error: lastPaymentError, payment_method: null });
    return {
      status: 402,
      body: { error: { ...lastPaymentError, payment_intent: intent, request_log_url: `https://dashboard.stripe.com/test/logs/req_${charge}` } },
      keep: true,
    };
  }

  function captureIntent(id: string, form: Form): Answer {
    const unknown = unknownParameter(form, CAPTURE_PARAMS);
    if (unknown) return unknown;
    const intent = fake.intents.get(id);
    if (!intent) return missing('payment_intent', id, 'intent');
    if (intent.status !== 'requires_capture') {
      return unexpectedState(intent, 'captured', 'requires_capture');
    }
    const amount = form.amount_to_capture === undefined ? intent.amount_capturable : integer(form.amount_to_capture);
    if (amount === undefined || amount < 1 || amount > intent.amount_capturable) {
      return kept(invalidParam('amount_to_capture', 'The amount to capture must be less than or equal to the amount capturable.', 'amount_too_large'));
    }
    Object.assign(intent, { status: 'succeeded', amount_received: amount, amount_capturable: 0 });
    return ok(view(intent, expansions(form)));
  }

  function cancelIntent(id: string, form: Form): Answer {
    const unknown = unknownParameter(form, CANCEL_PARAMS);
    if (unknown) return unknown;
    const intent = fake.intents.get(id);
    if (!intent) return missing('payment_intent', id, 'intent');
    const cancelable = ['requires_payment_method', 'requires_capture', 'requires_confirmation', 'requires_action', 'processing'];
    if (!cancelable.includes(intent.status)) return unexpectedState(intent, 'canceled', cancelable.join(', '));
    Object.assign(intent, {
      status: 'canceled',
      amount_capturable: 0,
      canceled_at: now(),
      cancellation_reason: typeof form.cancellation_reason === 'string' ? form.cancellation_reason : null,
    });
    return ok(view(intent, expansions(form)));
  }

  function createRefund(form: Form): Answer {
    const unknown = unknownParameter(form, REFUND_PARAMS);
    if (unknown) return unknown;
    const id = form.payment_intent;
    if (typeof id !== 'string')
      return invalidParam('payment_intent', 'One of the following params should be provided for this request: payment_intent or charge.', 'parameter_missing');
    const intent = fake.intents.get(id);
    if (!intent) return missing('payment_intent', id, 'payment_intent');
    if (intent.status !== 'succeeded') {
      return kept(invalidParam('payment_intent', `This PaymentIntent (${id}) does not have a successful charge to refund.`, 'charge_not_refundable'));
    }
    const refunded = [...fake.refunds.values()].filter((r) => r.payment_intent === id).reduce((sum, r) => sum + r.amount, 0);
    const left = intent.amount_received - refunded;
    const amount = form.amount === undefined ? left : integer(form.amount);
    if (left === 0) return kept(invalidParam('amount', `Charge ${intent.latest_charge} has already been refunded.`, 'charge_already_refunded'));
    if (amount === undefined || amount < 1 || amount > left) {
      const message = `Refund amount (${money(amount ?? 0)}) is greater than unrefunded amount on charge (${money(left)})`;
      return kept(invalidParam('amount', message, 'amount_too_large'));
    }
    const refund = {
      id: nextId('re'),
      object: 'refund',
      amount,
      balance_transaction: nextId('txn'),
      charge: intent.latest_charge,
      created: now(),
      currency: intent.currency,
      metadata: form.metadata ?? {},
      payment_intent: id,
      reason: typeof form.reason === 'string' ? form.reason : null,
      receipt_number: null,
      source_transfer_reversal: null,
      status: 'succeeded',
      transfer_reversal: null,
    };
    fake.refunds.set(refund.id, refund);
    return ok(refund);
  }

  function view(intent: Record<string, any>, expand: string[]): Record<string, any> {
    const copy = structuredClone(intent);
    if (expand.includes('payment_method') && typeof copy.payment_method === 'string') {
      copy.payment_method = paymentMethod(copy.payment_method, TEST_CARDS[copy.payment_method]!);
    }
    return copy;
  }

  const fake: FakeStripe = {
    url: '',
    host: '127.0.0.1',
    port: 0,
    requests: [],
    intents: new Map(),
    refunds: new Map(),
    override: () => undefined,
    async settled() {
      while (late.size > 0) await Promise.all(late);
    },
    reset() {
      fake.requests = [];
      fake.intents = new Map();
      fake.refunds = new Map();
      fake.override = () => undefined;
      idempotent = new Map();
    },
    async close() {
      for (const response of held) response.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.port = (server.address() as AddressInfo).port;
  fake.url = `http://127.0.0.1:${fake.port}`;
  return fake;
}

const NO_KEY =
  "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').";
const BAD_CONTENT_TYPE = 'Invalid request: unsupported Content-Type. If error persists and you need assistance, please contact support@stripe.com.';

/** Refuses a request as Stripe does before any endpoint runs: the key, then the body's encoding. */
function checkRequest(headers: IncomingHttpHeaders, raw: string, apiKey: string): { status: number; body: unknown } | undefined {
  const auth = headers.authorization;
  if (!auth) {
    return { status: 401, body: errorBody('invalid_request_error', NO_KEY) };
  }
  const given = auth.startsWith('Bearer ') ? auth.slice(7) : '';
  if (given !== apiKey) {
    // Stripe quotes the key it got, masked but for its prefix and last four characters.
    const masked = `${given.slice(0, 8)}${'*'.repeat(Math.max(given.length - 12, 0))}${given.slice(-4)}`;
    return { status: 401, body: errorBody('invalid_request_error', `Invalid API Key provided: ${masked}`) };
  }
  if (raw !== '' && !headers['content-type']?.startsWith('application/x-www-form-urlencoded')) {
    return { status: 400, body: errorBody('invalid_request_error', BAD_CONTENT_TYPE) };
  }
  return undefined;
}

/**
 * Decodes a Stripe form body. Brackets nest (`a[b]=1`), numeric or empty brackets make arrays (`a[0]=x`,
 * `a[]=x`), as Stripe's own parser (Rack's) reads them.
 */
export function parseForm(raw: string): Form {
  const form: Form = {};
  for (const [name, value] of new URLSearchParams(raw)) {
    const head = /^[^[]+/.exec(name)?.[0] ?? name;
    const path = [head, ...[...name.slice(head.length).matchAll(/\[([^\]]*)\]/g)].map((m) => m[1]!)];
    let node: Form | FormValue[] = form;
    path.forEach((segment, i) => {
      const last = i === path.length - 1;
      const nextIsList = !last && /^\d*$/.test(path[i + 1]!);
      const slot = Array.isArray(node) ? (segment === '' ? node.length : Number(segment)) : segment;
      const container = node as Record<string | number, FormValue>;
      if (last) container[slot] = value;
      else node = (container[slot] ??= nextIsList ? [] : {}) as Form | FormValue[];
    });
  }
  return form;
}

function paymentMethod(id: string, card: TestCard): Record<string, unknown> {
  return {
    id,
    object: 'payment_method',
    billing_details: { address: null, email: null, name: null, phone: null },
    card: {
      brand: card.brand,
      checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: 'unchecked' },
      country: 'US',
      display_brand: card.brand,
      exp_month: 12,
      exp_year: new Date().getUTCFullYear() + 3,
      fingerprint: 'Xt5EWLLDS7FJjR1c',
      funding: 'credit',
      last4: card.last4,
      networks: { available: [card.brand], preferred: null },
      wallet: null,
    },
    created: 1_700_000_000,
    customer: null,
    livemode: false,
    metadata: {},
    type: 'card',
  };
}

const ok = (body: unknown): Answer => ({ status: 200, body, keep: true });
/** A refusal that comes from running the endpoint (a state or amount rule), which Stripe does save for its key. */
const kept = (answer: Answer): Answer => ({ ...answer, keep: true });

function errorBody(type: string, message: string, extra: Record<string, unknown> = {}) {
  return { error: { ...extra, message, type } };
}

function refuse(status: number, type: string, message: string, extra: Record<string, unknown> = {}): Answer {
  return { status, body: errorBody(type, message, extra), keep: false };
}

function invalidParam(param: string, message: string, code: string): Answer {
  return refuse(400, 'invalid_request_error', message, { code, param, doc_url: `https://stripe.com/docs/error-codes/${code.replaceAll('_', '-')}` });
}

function missing(object: string, id: string, param: string): Answer {
  return refuse(param === 'intent' ? 404 : 400, 'invalid_request_error', `No such ${object}: '${id}'`, {
    code: 'resource_missing',
    param,
    doc_url: 'https://stripe.com/docs/error-codes/resource-missing',
  });
}

function unexpectedState(intent: Record<string, any>, verb: string, allowed: string): Answer {
  const message = `This PaymentIntent could not be ${verb} because it has a status of ${intent.status}. Only a PaymentIntent with one of the following statuses may be ${verb}: ${allowed}.`;
  const code = 'payment_intent_unexpected_state';
  return kept(
    refuse(400, 'invalid_request_error', message, {
      code,
      payment_intent: intent,
      doc_url: 'https://stripe.com/docs/error-codes/payment-intent-unexpected-state',
    }),
  );
}

function unknownParameter(form: Form, allowed: Set<string>): Answer | undefined {
  const name = Object.keys(form).find((key) => !allowed.has(key));
  return name === undefined ? undefined : invalidParam(name, `Received unknown parameter: ${name}`, 'parameter_unknown');
}

function expansions(form: Form): string[] {
  return Array.isArray(form.expand) ? form.expand.filter((e): e is string => typeof e === 'string') : [];
}

function integer(value: FormValue | undefined): number | undefined {
  return typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : undefined;
}

function money(amount: number): string {
  return `$${(amount / 100).toFixed(2)}`;
}
