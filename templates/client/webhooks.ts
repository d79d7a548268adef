/**
 * Reading webhook deliveries (docs/contract.md § Webhooks): `webhooks.unwrap` checks a delivery's Standard Webhooks
 * signature with the `standardwebhooks` package and returns its event, typed by `type`; `webhooks.generateTestHeaders`
 * signs a payload of a test's own as a delivery would be, so a receiver's tests need no running server.
 */
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { WebhookEvent } from './types.js';

export { WebhookVerificationError } from 'standardwebhooks';

/** Request headers as Node (`req.headers`), fetch (`Headers`) or a plain object give them. */
export type IncomingHeaders = Headers | Record<string, string | string[] | undefined>;

/** The signature headers of a delivery, as it sends them. */
export type WebhookHeaders = Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string>;

/** What `webhooks.generateTestHeaders` signs. */
export interface TestHeaderOptions {
  /** The body, exactly as the test will pass it to the receiver. */
  payload: string;
  /** The endpoint's secret (`whsec_…`). */
  secret: string;
  /** When the delivery says it was sent: a `Date`, or seconds since the Unix epoch. Now by default. */
  timestamp?: Date | number;
  /** The `webhook-id`; by default the payload's `id`, as a delivery sends its event's id. */
  id?: string;
}

export const webhooks = {
  /**
   * Verifies a delivery and returns its event: `webhook-signature` must be an HMAC of `webhook-id`,
   * `webhook-timestamp` and the body under the endpoint's secret (`whsec_…`; during a rotation either
   * secret's signature passes), and the timestamp within five minutes of now. Pass the body exactly as it
   * arrived, before any JSON parsing. Throws `WebhookVerificationError` otherwise.
   *
   * ```ts
   * const event = webhooks.unwrap(rawBody, req.headers, process.env.WEBHOOK_SECRET!);
   * // Branch on event.type: each branch has the data of its own type.
   * ```
   */
  unwrap(rawBody: string | Uint8Array, headers: IncomingHeaders, secret: string): WebhookEvent {
    const body = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
    return new Webhook(secret).verify(body, signatureHeaders(headers)) as WebhookEvent;
  },

  /**
   * The headers a delivery of `payload` signed with `secret` carries, which `unwrap` accepts (as Stripe's
   * `generateTestHeaderString`): for testing a receiver with events of the test's own making.
   *
   * ```ts
   * const payload = JSON.stringify(event);
   * const headers = webhooks.generateTestHeaders({ payload, secret: 'whsec_…' });
   * await fetch('http://localhost:3000/hooks', { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: payload });
   * ```
   */
  generateTestHeaders(options: TestHeaderOptions): WebhookHeaders {
    const { payload, secret } = options;
    const at = options.timestamp === undefined ? new Date() : options.timestamp instanceof Date ? options.timestamp : new Date(options.timestamp * 1000);
    if (Number.isNaN(at.getTime())) throw new TypeError('generateTestHeaders: timestamp is not a valid time.');
    const id = options.id ?? idOf(payload);
    return {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(id, at, payload),
    };
  },
};

/** The `id` of a JSON payload (an event's), which a delivery sends as its `webhook-id`. */
function idOf(payload: string): string {
  let id: unknown;
  try {
    id = (JSON.parse(payload) as { id?: unknown } | null)?.id;
  } catch {
    // Not JSON: it has no id to take, said below.
  }
  if (typeof id !== 'string' || id === '') throw new TypeError('generateTestHeaders: the payload has no string `id`; pass `id`.');
  return id;
}

/** The three signature headers, by their lower-case names, as `standardwebhooks` reads them. */
function signatureHeaders(headers: IncomingHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
    // A `get` method rather than `instanceof Headers`: a polyfill's or another realm's Headers have one too.
    const value = typeof headers.get === 'function' ? (headers as Headers).get(name) : headerOf(headers as Record<string, string | string[] | undefined>, name);
    if (value === null || value === undefined) throw new WebhookVerificationError(`Missing the ${name} header.`);
    out[name] = value;
  }
  return out;
}

function headerOf(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : headers[key];
  return Array.isArray(value) ? value.join(' ') : value;
}
