/**
 * What a webhook delivery sends: the event body of docs/contract.md § Webhooks and its Standard Webhooks signature,
 * `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`, made by the reference `standardwebhooks` package.
 * While a rotated secret is still in its overlap window, both secrets sign (space-separated), so a receiver
 * holding either one verifies the delivery.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { wireEvent } from '../../store/event-log.js';
import type { EventTable, WebhookEndpointTable } from '../../store/schema.js';

/** A new signing secret: `whsec_` and 32 random bytes in base64, the Standard Webhooks form. */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The JSON body of an event. `webhook-id` is the event id, so every delivery and retry of it shares one. */
export function eventBody(event: EventTable): string {
  return JSON.stringify(wireEvent(event));
}

/** The `webhook-signature` header for a body sent at `at`. */
export function signatures(endpoint: Pick<WebhookEndpointTable, 'secret' | 'previous_secret' | 'previous_secret_expires_at'>, id: string, at: Date, body: string): string {
  const secrets = [endpoint.secret];
  if (endpoint.previous_secret && endpoint.previous_secret_expires_at && endpoint.previous_secret_expires_at > at.toISOString()) {
    secrets.push(endpoint.previous_secret);
  }
  return secrets.map((secret) => new Webhook(secret).sign(id, at, body)).join(' ');
}
