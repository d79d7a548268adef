/**
 * Signing as docs/contract.md § Webhooks says, with the reference `standardwebhooks` package: the secrets
 * (`whsec_…`) and the three headers of a delivery, `webhook-signature` being `v1,<base64 HMAC-SHA256 of
 * "{id}.{timestamp}.{body}">` under each secret, space-separated. The webhooks face's deliveries and the events
 * `dispatch listen` forwards are signed here alike.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** A new signing secret: `whsec_` and 32 random bytes in base64, the Standard Webhooks form. */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The headers of a delivery of event `id` sent at `at`, signed with each of `secrets`. */
export function deliveryHeaders(secrets: readonly string[], id: string, at: Date, body: string): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(id, at, body)).join(' '),
  };
}
