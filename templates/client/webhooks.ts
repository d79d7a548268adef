/**
 * Reading webhook deliveries (docs/contract.md § Webhooks): `webhooks.unwrap` checks a delivery's Standard Webhooks
 * signature with the `standardwebhooks` package and returns its event, typed by `type`.
 */
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { WebhookEvent } from './types.js';

export { WebhookVerificationError } from 'standardwebhooks';

/** Request headers as Node (`req.headers`), fetch (`Headers`) or a plain object give them. */
export type IncomingHeaders = Headers | Record<string, string | string[] | undefined>;

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
};

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
