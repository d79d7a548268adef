/**
 * What a webhook delivery sends: the event body of docs/contract.md § Webhooks and its signature headers
 * (src/core/webhook-signing.ts). While a rotated secret is still in its overlap window, both secrets sign
 * (space-separated), so a receiver holding either one verifies the delivery.
 */
import { deliveryHeaders } from '../../core/webhook-signing.js';
import { wireEvent } from '../../store/event-log.js';
import type { EventTable, WebhookEndpointTable } from '../../store/schema.js';

/** The JSON body of an event. `webhook-id` is the event id, so every delivery and retry of it shares one. */
export function eventBody(event: EventTable): string {
  return JSON.stringify(wireEvent(event));
}

type SigningEndpoint = Pick<WebhookEndpointTable, 'secret' | 'previous_secret' | 'previous_secret_expires_at'>;

/** The secrets that sign at `at`: the endpoint's, and the one it replaced while that one's overlap lasts. */
export function signingSecrets(endpoint: SigningEndpoint, at: Date): string[] {
  const secrets = [endpoint.secret];
  if (endpoint.previous_secret && endpoint.previous_secret_expires_at && endpoint.previous_secret_expires_at > at.toISOString()) {
    secrets.push(endpoint.previous_secret);
  }
  return secrets;
}

/** The `webhook-signature` header for a body sent at `at`. */
export function signatures(endpoint: SigningEndpoint, id: string, at: Date, body: string): string {
  return deliveryHeaders(signingSecrets(endpoint, at), id, at, body)['webhook-signature'];
}
