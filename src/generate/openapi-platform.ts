/**
 * The parts of the OpenAPI document that every catalogue shares: the envelope schemas (options, meta,
 * error, stream events, webhook events), the header parameters and response headers (docs/contract.md
 * § Requests, § Success, § Rate limits, § Idempotency, § Webhooks), the webhook responses and the bearer scheme. The health endpoints (`/healthz`, `/readyz`) are for
 * operators, not API clients, and are left out, as Stripe's and GitHub's descriptions leave theirs.
 */
import type { JsonSchema, Platform } from '../spec/model.js';
import { WEBHOOK_RETRY_SCHEDULE, WEBHOOK_TIMEOUT_MS, webhookAttempts } from '../spec/webhook-delivery.js';
import { durations } from './docs-tables.js';

const DATE_PATTERN = '^\\d{4}-\\d{2}-\\d{2}$';
const ENTITY_PATTERN = '^[A-Za-z0-9._:-]{1,64}$';
/** 1–255 printable ASCII characters (docs/contract.md § Idempotency). */
const IDEMPOTENCY_KEY_PATTERN = '^[\\x20-\\x7E]{1,255}$';

/** A reference to a component of the document. */
export const ref = (kind: 'schemas' | 'parameters' | 'headers' | 'responses', name: string) => ({
  $ref: `#/components/${kind}/${name}`,
});

/** The names of the shared schemas, which no face schema may take. */
export const PLATFORM_SCHEMAS = [
  'DoRequest',
  'DoResponse',
  'Error',
  'ErrorEnvelope',
  'Event',
  'Meta',
  'Options',
];

/**
 * The envelope schemas: request options, `meta`, the error envelope and the webhook event body. An error's
 * `code` is one of `codes` (every code the catalogue declares) or any other string: a server may add codes,
 * and one this document does not list must be neither a breaking change nor a validation failure.
 */
export function platformSchemas(platform: Platform, codes: string[]): Record<string, JsonSchema> {
  return {
    Options: {
      type: 'object',
      description: 'Per-call options. Unknown fields are refused.',
      additionalProperties: false,
      properties: {
        timeout: {
          type: 'integer',
          minimum: 1,
          maximum: platform.limits.timeout.max,
          description: `Time-out in milliseconds; default ${platform.limits.timeout.default}.`,
        },
        idempotencyKey: {
          type: 'string',
          pattern: IDEMPOTENCY_KEY_PATTERN,
          description: 'Same as the `X-Idempotency-Key` header; when both are sent they must be equal.',
        },
        version: { type: 'string', pattern: DATE_PATTERN, description: 'Same as the `X-API-Version` header.' },
        stream: { type: 'boolean', description: 'Asks a streaming action for server-sent events.' },
      },
    },
    Meta: {
      type: 'object',
      description: 'Present on every response, success or error. May carry more fields.',
      required: ['timing', 'requestId', 'version'],
      properties: {
        timing: { type: 'number', minimum: 0, description: 'Server time spent on the request, in milliseconds.' },
        requestId: { type: 'string', pattern: '^req_', description: 'The request id, also sent as `Request-Id`.' },
        version: { type: 'string', description: "The server's semantic version." },
      },
    },
    Error: {
      type: 'object',
      required: ['type', 'code', 'message', 'docUrl'],
      properties: {
        type: { type: 'string', description: 'The kind of error, e.g. `invalid_request_error`.' },
        code: {
          description: 'Stable code; never changes once shipped. Listed in the error catalogue; a newer server may answer codes this document does not list.',
          anyOf: [
            { type: 'string', enum: [...new Set(codes)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)), description: 'A code this document lists.' },
            { type: 'string', description: 'A code added since.' },
          ],
        },
        message: { type: 'string', description: 'For people; may change at any time.' },
        param: { type: 'string', description: 'The offending field as a JSON pointer, e.g. `/payload/prompt`.' },
        details: { type: 'object', description: 'Structured context, e.g. `errors` for `payload_invalid`.' },
        docUrl: { type: 'string', description: `\`${platform.errorDocsUrl}#<code>\`: the code's documentation.` },
      },
    },
    ErrorEnvelope: {
      type: 'object',
      required: ['error', 'meta'],
      properties: { error: ref('schemas', 'Error'), meta: ref('schemas', 'Meta') },
    },
    Event: {
      type: 'object',
      description: 'The body of every webhook delivery; `Event_<Type>` narrows `type` and `data` for each event type.',
      required: ['id', 'type', 'timestamp', 'apiVersion', 'livemode', 'entityId', 'request', 'data'],
      properties: {
        id: {
          type: 'string',
          pattern: '^evt_',
          description: 'Event id, also sent as `webhook-id`: the same in every retry and replay, so deduplicate on it.',
        },
        type: { type: 'string', description: 'The event type, `<face>.<noun>.<outcome>`.' },
        timestamp: { type: 'string', format: 'date-time', description: 'When the event was stored, with the effects of the call that emitted it.' },
        apiVersion: { type: 'string', pattern: DATE_PATTERN, description: 'The API version the emitting call was made in.' },
        livemode: { type: 'boolean', description: '`true` for an event of a live-mode key, `false` for test mode.' },
        entityId: { type: 'string', pattern: ENTITY_PATTERN, description: 'The entity the emitting call acted for.' },
        request: {
          type: 'object',
          description: 'The emitting call; the requests of a batch share the batch\'s.',
          required: ['id', 'idempotencyKey'],
          properties: {
            id: { type: 'string', pattern: '^req_', description: 'Its request id.' },
            idempotencyKey: { type: ['string', 'null'], description: 'Its idempotency key, or null.' },
          },
        },
        data: { description: 'Depends on `type`.' },
      },
    },
  };
}

/**
 * The data of the stream events every streaming action may send (docs/contract.md § Streaming), written out
 * where the stream's `x-events` show them: a component only an extension refers to is one no tool counts as used.
 */
export const STREAM_DATA: Record<'start' | 'delta' | 'progress', JsonSchema> = {
  start: {
    type: 'object',
    required: ['requestId', 'apiVersion'],
    properties: { requestId: { type: 'string' }, apiVersion: { type: 'string', pattern: DATE_PATTERN } },
  },
  delta: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } },
  progress: {
    type: 'object',
    required: ['completed', 'total'],
    properties: { completed: { type: 'number' }, total: { type: 'number' }, message: { type: 'string' } },
  },
};

/** The header parameters of `/do` (docs/contract.md § Requests) and the path version of `/{version}/do`. */
export function parameters(): Record<string, JsonSchema> {
  const header = (name: string, required: boolean, description: string, schema: JsonSchema) => ({
    name,
    in: 'header',
    required,
    description,
    schema,
  });
  return {
    EntityId: header('X-Entity-ID', true, 'The entity the call acts for.', { type: 'string', pattern: ENTITY_PATTERN }),
    ApiVersion: header('X-API-Version', false, 'The API version; the path version, when given, must agree.', {
      type: 'string',
      pattern: DATE_PATTERN,
    }),
    IdempotencyKey: header('X-Idempotency-Key', false, 'Makes a retry safe: the same key and request replay the first response.', {
      type: 'string',
      pattern: IDEMPOTENCY_KEY_PATTERN,
    }),
    WebhookId: header('webhook-id', true, 'The event id: the same across retries and replays of the event. Deduplicate on it.', {
      type: 'string',
      pattern: '^evt_',
    }),
    WebhookTimestamp: header('webhook-timestamp', true, 'When this attempt was sent, in whole seconds since the Unix epoch.', {
      type: 'string',
      pattern: '^[0-9]+$',
    }),
    WebhookSignature: header(
      'webhook-signature',
      true,
      '`v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">`, keyed with the endpoint\'s secret (Standard Webhooks). ' +
        'During the overlap of a secret rotation, two signatures separated by a space, one per secret.',
      { type: 'string', pattern: '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$' },
    ),
    Version: {
      name: 'version',
      in: 'path',
      required: true,
      description: 'The API version, pinned in the path.',
      schema: { type: 'string', pattern: DATE_PATTERN },
    },
  };
}

/** Response headers: request id, resolved version, rate limits, replays and deprecation. */
export function headers(): Record<string, JsonSchema> {
  const header = (description: string, schema: JsonSchema = { type: 'string' }) => ({ description, schema });
  return {
    RequestId: { ...header('The request id (`req_…`), as in `meta.requestId`.', { type: 'string', pattern: '^req_' }), required: true },
    ResolvedApiVersion: { ...header('The resolved API version.', { type: 'string', pattern: DATE_PATTERN }), required: true },
    ApiVersion: header('The resolved API version, once the request got that far.', { type: 'string', pattern: DATE_PATTERN }),
    RateLimitPolicy: header('The rate policies that apply (draft-ietf-httpapi-ratelimit-headers).'),
    RateLimit: header('What is left of the policy closest to its limit.'),
    RetryAfter: header('Whole seconds to wait before retrying.', { type: 'integer', minimum: 0 }),
    RateLimitRetryAfter: { ...header('Whole seconds until the call would pass.', { type: 'integer', minimum: 0 }), required: true },
    WwwAuthenticate: {
      ...header('The challenge of RFC 6750: `Bearer`, with `error="invalid_token"` when a key was sent and refused.', { type: 'string', pattern: '^Bearer( |$)' }),
      required: true,
    },
    IdempotentReplayed: header('`true` when the response is a replay of an earlier one.', { type: 'string', const: 'true' }),
    Deprecation: header('Set when the resolved version is deprecated (RFC 9745).'),
    Sunset: header('When a deprecated version stops being served (RFC 8594).'),
    Link: header('The changelog, with `rel="deprecation"`, when the resolved version is deprecated.'),
  };
}

/** What a webhook receiver's answer means to the delivery worker (docs/contract.md § Webhooks). */
export function webhookResponses(): Record<string, JsonSchema> {
  const seconds = WEBHOOK_TIMEOUT_MS / 1000;
  return {
    WebhookReceived: { description: `Received: any 2xx within ${seconds} seconds. The body is ignored.` },
    WebhookGone: {
      description: 'Gone: the endpoint is disabled at once and receives nothing more until `webhooks.update` enables it again.',
    },
    WebhookFailed: {
      description:
        `Any other status, a failed connection, or no answer within ${seconds} seconds, is a failed attempt. ` +
        `It is retried at these times after the first attempt, each up to 10% later: live mode ${durations(WEBHOOK_RETRY_SCHEDULE.live)}; ` +
        `test mode ${durations(WEBHOOK_RETRY_SCHEDULE.test)}. After the last, the delivery is failed; \`webhooks.replay\` sends it again.`,
      headers: {
        'Retry-After': {
          description: 'Honoured: the next attempt comes no earlier.',
          schema: { type: 'string', description: 'Whole seconds or an HTTP date.' },
        },
      },
    },
  };
}

/** The API key, sent as a bearer token. */
export const bearerScheme = {
  type: 'http',
  scheme: 'bearer',
  bearerFormat: 'sk_live_… or sk_test_…',
  description: '`Authorization: Bearer sk_live_…` or `Bearer sk_test_…`. Test keys see only test data and use sandbox backends.',
};
