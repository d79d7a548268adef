/**
 * One OpenAPI operation per action: `POST /do/{face}.{action}` (docs/contract.md § Endpoints), the alias of the envelope whose
 * body is `{payload, options?}`. Each has its own operation id (`authLogin`), its face's tag, its request and
 * response schemas, the face file's examples on both, its price, and for a streaming action the server-sent
 * events it sends, one schema per event. The canonical `POST /do` stays in the document beside them.
 */
import { BATCH_ACTION } from '../core/dispatch-types.js';
import { eachSubschema, isObject } from '../spec/json-schema.js';
import type { Action, Face, JsonSchema } from '../spec/model.js';
import { exampleOptions } from './example-options.js';
import { literal } from './ts-literal.js';
import { priceWords } from './price-words.js';
import { ref, STREAM_DATA } from './openapi-platform.js';

/** An action served by the latest version, with its payload schema in that version. */
export interface Served {
  face: Face;
  action: Action;
  payload: JsonSchema;
}

/** The `meta` every example response shows (docs/contract.md § Success). */
export const EXAMPLE_META = { timing: 12.5, requestId: 'req_01JD7N9V3W2K8Q5R6T7Y8Z9A0C', version: '0.1.0' };

/** The request headers of every call (docs/contract.md § Requests). */
export const CALL_PARAMETERS = [ref('parameters', 'EntityId'), ref('parameters', 'ApiVersion'), ref('parameters', 'IdempotencyKey')];

/** The headers of a success (docs/contract.md § Success, § Versions, § Rate limits, § Idempotency). */
export function successHeaders(): Record<string, JsonSchema> {
  return {
    'Request-Id': ref('headers', 'RequestId'),
    'X-API-Version': ref('headers', 'ResolvedApiVersion'),
    'RateLimit-Policy': ref('headers', 'RateLimitPolicy'),
    RateLimit: ref('headers', 'RateLimit'),
    'Idempotent-Replayed': ref('headers', 'IdempotentReplayed'),
    Deprecation: ref('headers', 'Deprecation'),
    Sunset: ref('headers', 'Sunset'),
    Link: ref('headers', 'Link'),
  };
}

/** `authLogin` for `auth.login`: the action's type name, lower camel case. */
export const operationIdOf = (action: Action) => action.typeName.charAt(0).toLowerCase() + action.typeName.slice(1);

/** The operation of an action, its success response alone: the error responses are the document's to name (openapi-errors.ts). */
export function actionOperation({ face, action, payload }: Served, currency: string, clientPackage: string) {
  // The payload is written out here rather than referenced: code generators (openapi-typescript) then read
  // its defaults as a request's, which a caller may leave out, not as a response's, which is always there.
  const body = { type: 'object', required: ['payload'], additionalProperties: false, properties: { payload: componentRefs(payload, face), options: ref('schemas', 'Options') } };
  const result = { type: 'object', required: ['data', 'meta'], properties: { data: ref('schemas', `${action.typeName}Result`), meta: ref('schemas', 'Meta') } };
  const examples = (value: (example: Action['examples'][number]) => unknown) =>
    action.examples.length ? { examples: Object.fromEntries(action.examples.map((example, i) => [`example${i + 1}`, { summary: example.title ?? action.summary.trim(), value: value(example) }])) } : {};
  return {
    operationId: operationIdOf(action),
    tags: [face.name],
    summary: action.summary.trim(),
    description: [
      action.description?.trim(),
      `Requires the \`${action.scope}\` scope. ${priceAndEffects(action, currency)}`,
      `The same call as \`POST /do\` with \`{"face": "${face.name}", "action": "${action.name}", "payload": …, "options": …}\`.`,
    ]
      .filter(Boolean)
      .join('\n\n'),
    'x-cost': actionCost(action, currency),
    'x-codeSamples': codeSamples(action, clientPackage),
    parameters: CALL_PARAMETERS,
    requestBody: { required: true, content: { 'application/json': { schema: body, ...examples((e) => ({ payload: e.payload, ...exampleOptions(action) })) } } },
    responses: {
      '200': {
        description: action.streamOnly
          ? `The stream of server-sent events \`${action.id}\` sends (it answers only as a stream).`
          : action.stream
            ? `The result of \`${action.id}\`, or the stream of server-sent events it sends.`
            : `The result of \`${action.id}\`.`,
        headers: successHeaders(),
        content: {
          ...(action.streamOnly ? {} : { 'application/json': { schema: result, ...examples((e) => ({ data: e.result, meta: EXAMPLE_META })) } }),
          ...(action.stream ? { 'text/event-stream': { schema: streamEvents(result, { face, action }) } } : {}),
        },
      },
    },
  };
}

/**
 * The call as curl and as the generated client make it, with the face file's first example (Redoc and
 * Scalar show `x-codeSamples` beside the operation).
 */
function codeSamples(action: Action, clientPackage: string) {
  const payload = action.examples[0]?.payload ?? {};
  const body = JSON.stringify({ payload, ...exampleOptions(action) }).replace(/'/g, "'\\''");
  const curl = [
    `curl ${EXAMPLE_SERVER}/do/${action.id} \\`,
    '  -H "Authorization: Bearer $API_KEY" \\',
    "  -H 'X-Entity-ID: acme' \\",
    "  -H 'Content-Type: application/json' \\",
    ...(action.streamOnly ? ["  -H 'Accept: text/event-stream' \\"] : []),
    `  -d '${body}'`,
  ].join('\n');
  const typescript = [
    `import { createClient } from '${clientPackage}';`,
    '',
    `const client = createClient({ baseUrl: '${EXAMPLE_SERVER}', apiKey: process.env.API_KEY!, entityId: 'acme' });`,
    clientCall(action, payload),
  ].join('\n');
  return [
    { lang: 'Shell', label: 'curl', source: curl },
    { lang: 'TypeScript', label: 'TypeScript', source: typescript },
  ];
}

/**
 * The client's call of the action with `payload`. The built-in batch face's run is the client's typed
 * `client.batch(requests, {mode})` (client-model.ts), not a method of a `batch` face.
 */
function clientCall(action: Action, payload: unknown): string {
  if (action.id === BATCH_ACTION && isObject(payload)) {
    const { requests = [], ...options } = payload;
    return `const results = await client.batch(${literal(requests)}${Object.keys(options).length ? `, ${literal(options)}` : ''});`;
  }
  if (action.streamOnly) return `for await (const event of client.${action.face}.${action.name}.stream(${literal(payload)})) console.log(event.event, event.data);`;
  return `const result = await client.${action.face}.${action.name}(${literal(payload)});`;
}

/** Where the samples call: the server's default address. */
const EXAMPLE_SERVER = 'http://localhost:8787';

/** The action's prices as strings, exactly as the face file writes them, units sorted. */
export function actionCost(action: Action, currency: string) {
  const { perCall, perUnit } = action.cost;
  const units = Object.keys(perUnit).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { currency, perCall, perUnit: Object.fromEntries(units.map((unit) => [unit, perUnit[unit]!])) };
}

/** The action's price, then whether it streams and which events it emits. */
export function priceAndEffects(action: Action, currency: string): string {
  const parts = [`Price: ${priceWords(action.cost, currency)}.`];
  // Face files do not say which of `delta` and `progress` an action sends, so both are named.
  const own = action.streamEvents.map((e) => `\`${e.name}\``);
  const events = `\`start\`, then \`delta\`, \`progress\`${own.length ? `, ${own.join(', ')}` : ''} and \`ping\` events, then \`result\` or \`error\``;
  if (action.streamOnly) parts.push(`Answers only as a stream (ask for it, or get 400 \`stream_required\`): ${events}.`);
  else if (action.stream) parts.push(`Can stream: ${events}.`);
  if (action.emits.length) parts.push(`Emits ${action.emits.map((type) => `\`${type}\``).join(', ')} (see \`webhooks\` in this document).`);
  return parts.join(' ');
}

/**
 * The body of a stream (docs/contract.md § Streaming): text, every message being `id` (its sequence number),
 * `event` and one `data` line of JSON. OpenAPI 3.1 cannot say that a body is a sequence (3.2's `itemSchema`
 * will), and a JSON object schema there makes validators refuse real streams and typed clients mix the
 * messages into the JSON result, so the body is a string and each message's schema, as the object it parses
 * to, sits under `x-events` by event name. `result` is the action's `{data, meta}`; the action's own events
 * carry their data schemas.
 */
export function streamEvents(result: JsonSchema, own?: { face: Face; action: Action }): JsonSchema {
  const events = own ? own.action.streamEvents.map((e) => message(e.name, componentRefs(e.dataSchema, own.face), e.summary.trim())) : [];
  const messages = [
    message('start', STREAM_DATA.start, 'Opens the stream.'),
    message('delta', STREAM_DATA.delta, 'A piece of text; the pieces concatenate to the result.'),
    message('progress', STREAM_DATA.progress, 'How far the action has come.'),
    ...events,
    message('ping', { type: 'object', maxProperties: 0, description: 'Always `{}`.' }, 'Sent every 15 seconds to keep the connection open.'),
    message('result', result, 'The terminal event of a success; the stream closes after it.'),
    message('error', ref('schemas', 'ErrorEnvelope'), 'The terminal event of a failure; the stream closes after it.'),
  ];
  return { type: 'string', description: STREAM_DESCRIPTION, 'x-events': Object.fromEntries(messages.map((m) => [m.title, m])) };
}

const STREAM_DESCRIPTION = [
  'Server-sent events: `id: <sequence>`, `event: <name>` and one `data:` line of JSON per message; `x-events` gives, by event name, the object each message parses to.',
  '`start` comes first, then `delta` or `progress` events (and the action\'s own), `ping` every 15 seconds, and exactly one terminal event, `result` or `error`, after which the stream closes.',
  'Errors found before the stream opens are ordinary JSON error responses. A client that disconnects aborts the action; the time-out covers the whole stream.',
  'A replay of a streaming request with the same idempotency key sends `start` and the stored terminal event only.',
].join(' ');

function message(event: string, data: JsonSchema, description: string): JsonSchema {
  return {
    type: 'object',
    title: event,
    description,
    required: ['id', 'event', 'data'],
    properties: { id: { type: 'string', description: 'The sequence number of the message.' }, event: { const: event }, data },
  };
}

/** A copy with `#/$defs/X` pointing at the face's component `<Face>X`, and `$defs` dropped. */
export function componentRefs(schema: JsonSchema, face: Face): JsonSchema {
  const { $defs: _defs, ...copy } = structuredClone(schema);
  eachSubschema(copy, (node) => {
    if (typeof node.$ref === 'string' && node.$ref.startsWith('#/$defs/')) {
      node.$ref = `#/components/schemas/${face.typeName}${node.$ref.slice('#/$defs/'.length)}`;
    }
  });
  return copy;
}
