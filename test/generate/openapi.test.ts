/**
 * The committed OpenAPI document (`generated/openapi.json`; `npm run check` keeps it current) and the
 * fixture's: every `$ref` resolves, every component schema compiles as JSON Schema 2020-12 and accepts the
 * examples, the `webhooks` entries are exactly the catalogue's event types with the body the worker sends,
 * operation ids are unique, and the stream description matches the runtime. Each operation lists the error
 * statuses and codes its action can answer (another face's declines only where its handler charges), every 401
 * declares its WWW-Authenticate challenge, and an error code the document does not list still validates.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { emitDocs } from '../../src/generate/emit-docs.js';
import { emitOpenApi } from '../../src/generate/emit-openapi.js';
import { catalogErrors } from '../../src/spec/action-errors.js';
import { buildCatalog } from '../../src/spec/index.js';
import type { Catalog } from '../../src/spec/model.js';
import { eventBody } from '../../src/faces/webhooks/message.js';

type Json = Record<string, any>;

const read = (path: string) => JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as Json;
const doc = read('../../generated/openapi.json');
const fixture = read('../fixtures/notes/expected/openapi.json');
const catalog = buildCatalog(new URL('../../faces/', import.meta.url).pathname).catalog!;
const eventTypes = catalog.faces.flatMap((f) => f.events.map((e) => e.type)).sort();

/** Every `$ref` in the document with its location, as a JSON pointer. */
function refs(node: unknown, at = '#'): { at: string; ref: string }[] {
  if (Array.isArray(node)) return node.flatMap((item, i) => refs(item, `${at}/${i}`));
  if (typeof node !== 'object' || node === null) return [];
  return Object.entries(node).flatMap(([key, value]) =>
    key === '$ref' && typeof value === 'string' ? [{ at, ref: value }] : refs(value, `${at}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`),
  );
}

/** The value a local reference (`#/a/b`) points at, or undefined. */
function resolve(root: Json, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Json)[key];
  }
  return node;
}

/** Every operation of the document: paths and webhooks. */
function operations(root: Json): Json[] {
  return [...Object.values(root.paths ?? {}), ...Object.values(root.webhooks ?? {})].flatMap((item) => Object.values(item as Json));
}

describe.each([
  ['generated/openapi.json', doc],
  ['the notes fixture', fixture],
])('%s', (_name, root) => {
  it('is OpenAPI 3.1 and every $ref resolves', () => {
    expect(root.openapi).toBe('3.1.0');
    const all = refs(root);
    expect(all.length).toBeGreaterThan(50);
    expect(all.filter(({ ref }) => resolve(root, ref) === undefined)).toEqual([]);
  });

  it('gives every operation a unique id and responses', () => {
    const ops = operations(root);
    const ids = ops.map((op) => op.operationId as string);
    expect(new Set(ids).size).toBe(ids.length);
    for (const op of ops) expect(Object.keys(op.responses).length, op.operationId).toBeGreaterThan(0);
  });

  it('describes a stream as text and each message under x-events, ping events as `{}` as the runtime sends them', () => {
    const stream = root.components.responses.Success.content['text/event-stream'].schema as Json;
    expect(stream.type).toBe('string');
    expect(stream.oneOf).toBeUndefined();
    const messages = Object.values(stream['x-events'] as Json) as Json[];
    expect(Object.keys(stream['x-events'])).toEqual(['start', 'delta', 'progress', 'ping', 'result', 'error']);
    expect(messages.map((m) => m.properties.event.const)).toEqual(['start', 'delta', 'progress', 'ping', 'result', 'error']);
    for (const message of messages) expect(message.required).toEqual(['id', 'event', 'data']);
    expect(messages[3]!.properties.data).toMatchObject({ type: 'object', maxProperties: 0 });
  });

  it('passes Redocly\'s recommended rules without an error or a warning', async () => {
    const problems = await lintFromString({ source: JSON.stringify(root), absoluteRef: 'openapi.json', config: await createConfig({ extends: ['recommended'] }) });
    expect(problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
  });
});

describe('operations per action', () => {
  const served = catalog.faces.flatMap((face) => face.actions.filter((a) => a.variants.some((v) => v.versions.includes(catalog.platform.latest))));

  it('gives every action POST /do/{face}.{action}, named in lower camel case and tagged with its face', () => {
    const tags = (doc.tags as Json[]).map((t) => t.name);
    expect(served.length).toBeGreaterThan(20);
    for (const action of served) {
      const op = doc.paths[`/do/${action.id}`]?.post as Json;
      expect(op, action.id).toBeDefined();
      expect(op.operationId).toBe(action.typeName.charAt(0).toLowerCase() + action.typeName.slice(1));
      expect(op.tags).toEqual([action.face]);
      expect(tags).toContain(action.face);
      expect(op.summary).toBe(action.summary.trim());
      expect(op.requestBody.content['application/json'].schema.properties.payload.type, action.id).toBe('object');
      expect(doc.components.schemas[`${action.typeName}Payload`], action.id).toBeUndefined();
      if (action.streamOnly) expect(op.responses['200'].content['application/json'], action.id).toBeUndefined();
      else expect(op.responses['200'].content['application/json'].schema.properties.data).toEqual({ $ref: `#/components/schemas/${action.typeName}Result` });
      expect(Object.keys(op.responses)).toContain('429');
    }
    expect(doc.paths['/do/auth.login'].post.operationId).toBe('authLogin');
    expect(served.filter((a) => a.streamOnly).map((a) => a.id)).toEqual(['usage.live']);
    expect(doc.paths['/do'].post.tags).toEqual(['POST /do']);
  });

  it("shows the face file's examples on the request and the response", () => {
    for (const action of served.filter((a) => a.examples.length > 0 && !a.streamOnly)) {
      const op = doc.paths[`/do/${action.id}`].post as Json;
      const requests = Object.values(op.requestBody.content['application/json'].examples as Json).map((e) => e.value);
      const responses = Object.values(op.responses['200'].content['application/json'].examples as Json).map((e) => e.value.data);
      expect(requests, action.id).toEqual(action.examples.map((e) => ({ payload: e.payload })));
      expect(responses, action.id).toEqual(action.examples.map((e) => e.result));
    }
  });

  it("describes a streaming action's messages, its own events and its result among them", () => {
    const streaming = served.filter((a) => a.stream);
    expect(streaming.length).toBeGreaterThan(0);
    for (const action of streaming) {
      const stream = doc.paths[`/do/${action.id}`].post.responses['200'].content['text/event-stream'].schema as Json;
      expect(stream.type, action.id).toBe('string');
      const messages = Object.values(stream['x-events'] as Json) as Json[];
      const events = messages.map((m) => m.properties.event.const);
      expect(events).toEqual(['start', 'delta', 'progress', ...action.streamEvents.map((e) => e.name), 'ping', 'result', 'error']);
      expect(messages.find((m) => m.title === 'result')!.properties.data.properties.data).toEqual({ $ref: `#/components/schemas/${action.typeName}Result` });
    }
    for (const action of served.filter((a) => !a.stream)) {
      expect(doc.paths[`/do/${action.id}`].post.responses['200'].content['text/event-stream'], action.id).toBeUndefined();
    }
  });
});

describe('errors per operation', () => {
  const table = new Map(catalogErrors(catalog).map((e) => [e.code, e]));
  const served = catalog.faces.flatMap((face) => face.actions.filter((a) => a.variants.some((v) => v.versions.includes(catalog.platform.latest))));
  /** The responses of an operation other than its success, each as the component it refers to. */
  const failures = (path: string) =>
    Object.entries(doc.paths[path].post.responses as Json)
      .filter(([status]) => status !== '200')
      .map(([status, response]) => [status, resolve(doc, (response as Json).$ref) as Json] as const);
  /** An operation's error codes by status. */
  const codesOf = (path: string): Record<string, string[]> => Object.fromEntries(failures(path).map(([status, response]) => [status, response['x-error-codes']]));

  it("lists an action's own codes, not another face's: ai.generate answers no 402, payments.confirmIntent its declines", () => {
    const generate = codesOf('/do/ai.generate');
    expect(generate['402']).toBeUndefined();
    expect(Object.values(generate).flat()).not.toContain('card_declined');
    expect(generate['400']).toContain('model_not_available');
    expect(generate['502']).toEqual(['provider_failed']);
    const confirm = codesOf('/do/payments.confirmIntent');
    expect(confirm['402']).toEqual(['card_declined', 'expired_card', 'insufficient_funds', 'processing_error']);
    expect(confirm['400']).toEqual(expect.arrayContaining(['intent_state_invalid', 'payment_method_invalid']));
    expect(confirm['400']).not.toContain('refund_too_large');
    // billing.payInvoice charges through payments, and answers its declines.
    expect(codesOf('/do/billing.payInvoice')['402']).toEqual(confirm['402']);
    expect(codesOf('/do/payments.listCustomers')['402']).toBeUndefined();
  });

  it("lists the pipeline's codes on every action, the stream refusals as the action streams", () => {
    for (const action of served) {
      const codes = codesOf(`/do/${action.id}`);
      const all = Object.values(codes).flat();
      expect(codes['401'], action.id).toEqual(expect.arrayContaining(['api_key_expired', 'api_key_invalid', 'api_key_missing', 'api_key_revoked']));
      expect(codes['403'], action.id).toEqual(expect.arrayContaining(['entity_forbidden', 'entity_missing', 'insufficient_scope']));
      expect(all, action.id).toEqual(expect.arrayContaining(['payload_invalid', 'invalid_json', 'payload_too_large', 'unsupported_media_type', 'idempotency_key_in_use', 'idempotency_key_reused', 'timeout', 'internal_error', 'store_unavailable']));
      expect(all.includes('rate_limit_exceeded'), action.id).toBe(action.id !== 'batch.run');
      expect(all.includes('stream_not_supported'), action.id).toBe(!action.stream);
      expect(all.includes('stream_required'), action.id).toBe(action.streamOnly);
      expect(all.includes('request_aborted'), action.id).toBe(action.stream);
    }
  });

  it('answers batch_aborted under the status of any request it may abort on', () => {
    const batch = codesOf('/do/batch.run');
    for (const status of ['400', '403', '404', '429', '503']) expect(batch[status], status).toContain('batch_aborted');
    expect(batch['429']).toEqual(['batch_aborted']);
    // Card declines come only from payments' actions with outside effects, which an atomic batch refuses up front.
    expect(batch['402']).toBeUndefined();
  });

  it('puts each code under its own status, with its example, and names every code in the description', () => {
    for (const path of Object.keys(doc.paths)) {
      for (const [status, response] of failures(path)) {
        const codes = response['x-error-codes'] as string[];
        expect(codes.length, `${path} ${status}`).toBeGreaterThan(0);
        for (const code of codes) {
          if (code !== 'batch_aborted') expect(table.get(code)?.status, `${path} ${status} ${code}`).toBe(Number(status));
          expect(response.description).toContain(`\`${code}\``);
          expect(response.content['application/json'].examples[code]).toEqual({ $ref: `#/components/examples/${code}` });
        }
      }
    }
  });

  it('declares WWW-Authenticate, required, on every 401', () => {
    const challenge = doc.components.headers.WwwAuthenticate as Json;
    expect(challenge.required).toBe(true);
    for (const path of Object.keys(doc.paths)) {
      const unauthenticated = failures(path).find(([status]) => status === '401');
      expect(unauthenticated?.[1].headers['WWW-Authenticate'], path).toEqual({ $ref: '#/components/headers/WwwAuthenticate' });
    }
  });

  it('gives POST /do every code of every action, and an unknown face or action', () => {
    const envelope = Object.values(codesOf('/do')).flat();
    for (const action of served) expect(envelope).toEqual(expect.arrayContaining(Object.values(codesOf(`/do/${action.id}`)).flat()));
    expect(envelope).toEqual(expect.arrayContaining(['face_not_found', 'action_not_found', 'card_declined']));
    expect(codesOf('/{version}/do')).toEqual(codesOf('/do'));
  });
});

describe('webhooks', () => {
  it('has one entry per event type of the catalogue', () => {
    expect(eventTypes.length).toBeGreaterThan(0);
    expect(Object.keys(doc.webhooks)).toEqual(eventTypes);
    expect(Object.keys(fixture.webhooks)).toEqual(['notes.add.succeeded']);
  });

  it('describes each as the signed POST of its event body', () => {
    for (const type of eventTypes) {
      const event = catalog.faces.flatMap((f) => f.events).find((e) => e.type === type)!;
      const op = doc.webhooks[type].post as Json;
      expect(op.security).toEqual([]);
      expect(op.summary).toBe(event.summary.trim());
      for (const id of event.emittedBy) expect(op.description).toContain(`\`${id}\``);
      const headers = op.parameters.map((p: Json) => resolve(doc, p.$ref) as Json);
      expect(headers.map((h: Json) => [h.name, h.in, h.required])).toEqual([
        ['webhook-id', 'header', true],
        ['webhook-timestamp', 'header', true],
        ['webhook-signature', 'header', true],
      ]);
      expect(Object.keys(op.responses).sort()).toEqual(['2XX', '410', 'default']);

      const body = resolve(doc, op.requestBody.content['application/json'].schema.$ref) as Json;
      expect(body.allOf[0]).toEqual({ $ref: '#/components/schemas/Event' });
      expect(body.allOf[1].properties.type).toEqual({ const: type });
      const data = resolve(doc, body.allOf[1].properties.data.$ref) as Json;
      // The data schema is the event's, its `#/$defs/X` now the face's component `<Face>X`.
      const { $defs: _defs, ...expected } = event.dataSchema;
      const face = catalog.faces.find((f) => f.name === event.face)!;
      const local = JSON.stringify(data).replaceAll(`#/components/schemas/${face.typeName}`, '#/$defs/');
      expect(JSON.parse(local)).toEqual({ description: event.summary.trim(), ...expected });
    }
  });

  it('documents the envelope fields the worker sends', () => {
    const body = JSON.parse(
      eventBody({
        id: 'evt_1',
        mode: 'live',
        entity_id: 'acme',
        type: 'auth.signup.succeeded',
        api_version: '2026-09-01',
        request_id: 'req_1',
        idempotency_key: 'k',
        data: '{}',
        created_at: '2026-09-01T12:00:00.000Z',
      }),
    ) as Json;
    const envelope = doc.components.schemas.Event as Json;
    expect(envelope.required).toEqual(Object.keys(body));
    expect(Object.keys(envelope.properties)).toEqual(Object.keys(body));
    expect(envelope.properties.request.required).toEqual(Object.keys(body.request));
  });

  it('documents the retry schedules, 410 and Retry-After', () => {
    const failed = doc.components.responses.WebhookFailed as Json;
    expect(failed.description).toContain('live mode 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h');
    expect(failed.description).toContain('test mode 5 s, 30 s');
    expect(failed.headers['Retry-After']).toBeDefined();
    expect(doc.components.responses.WebhookGone.description).toContain('disabled');
  });

  it('refuses event types whose component names would clash', () => {
    const clashing = structuredClone(catalog) as Catalog;
    const auth = clashing.faces.find((f) => f.name === 'auth')!;
    const [event] = auth.events;
    // `auth.sign.upSucceeded` and `auth.signUp.succeeded` would both be AuthSignUpSucceeded.
    auth.events.push({ ...event!, type: 'auth.sign.upSucceeded' }, { ...event!, type: 'auth.signUp.succeeded' });
    for (const e of auth.events.slice(-2)) e.typeName = 'AuthSignUpSucceeded';
    expect(() => emitOpenApi(clashing)).toThrow(/OpenAPI schema name clash: EventData_AuthSignUpSucceeded/);
  });
});

describe('POST /do', () => {
  const operation = (action: { id: string }) => doc.paths[`/do/${action.id}`]?.post as Json | undefined;

  it('takes the envelope alone: face and action by name, the payload an object', () => {
    const request = doc.components.schemas.DoRequest as Json;
    expect(request.oneOf).toBeUndefined();
    expect(request.required).toEqual(['face', 'action', 'payload']);
    expect(request.properties.payload.type).toBe('object');
    const served = catalog.faces.flatMap((f) => f.actions).filter((a) => operation(a));
    expect(request.properties.face.enum).toEqual([...new Set(served.map((a) => a.face))].sort());
    expect(request.properties.action.enum).toEqual([...new Set(served.map((a) => a.name))].sort());
  });

  it("shows each action's first example as a call, a stream-only action asking for its stream", () => {
    const examples = doc.paths['/do'].post.requestBody.content['application/json'].examples as Json;
    const withExamples = catalog.faces.flatMap((f) => f.actions).filter((a) => operation(a) && a.examples.length > 0);
    expect(Object.keys(examples)).toEqual(withExamples.map((a) => a.id));
    for (const action of withExamples) {
      const options = action.streamOnly ? { options: { stream: true } } : {};
      expect(examples[action.id].value, action.id).toEqual({ face: action.face, action: action.name, payload: action.examples[0]!.payload, ...options });
    }
    expect(doc.paths['/{version}/do'].post.requestBody.content['application/json'].examples).toEqual(examples);
  });

  it('says on each action which stream and which events each emits', () => {
    for (const action of catalog.faces.flatMap((f) => f.actions)) {
      const op = operation(action);
      if (!op) continue;
      expect(op.description.includes(action.streamOnly ? 'Answers only as a stream' : 'Can stream'), action.id).toBe(action.stream);
      for (const type of action.emits) expect(op.description).toContain(`\`${type}\``);
    }
    expect(doc['x-actions'].find((a: Json) => a.id === 'auth.signup').emits).toEqual(['auth.signup.succeeded']);
  });

  it('gives each action its price: an x-cost of decimal strings and a line of the description', () => {
    for (const action of catalog.faces.flatMap((f) => f.actions)) {
      const op = operation(action);
      if (!op) continue;
      expect(op['x-cost'], action.id).toEqual({ currency: catalog.platform.currency, ...action.cost });
      expect(Object.keys(op['x-cost'].perUnit)).toEqual(Object.keys(action.cost.perUnit).sort());
    }
    const generate = operation({ id: 'ai.generate' })!;
    expect(generate['x-cost']).toEqual({ currency: 'usd', perCall: '0.0005', perUnit: { inputTokens: '0.0000005', outputTokens: '0.000002' } });
    expect(generate.description).toContain('Price: 0.0005 USD per call + 0.0000005 USD per `inputTokens` + 0.000002 USD per `outputTokens`.');
    expect(operation({ id: 'keys.list' })!.description).toContain('Price: free.');
  });
});

describe('component schemas', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  // The whole document as one schema resource, so that `#/components/...` references resolve in it.
  ajv.addSchema({ $id: 'openapi.json', components: doc.components, paths: doc.paths });
  const schema = (name: string) => {
    const validate = ajv.getSchema(`openapi.json#/components/schemas/${name}`);
    if (!validate) throw new Error(`no schema ${name}`);
    return validate;
  };
  const accepts = (name: string, value: unknown) => {
    const validate = schema(name);
    return validate(value) ? 'ok' : `${name}: ${ajv.errorsText(validate.errors)}`;
  };

  /** An action's payload schema, written out in its operation. */
  const acceptsPayload = (id: string, value: unknown) => {
    const validate = ajv.getSchema(`openapi.json#/paths/~1do~1${id}/post/requestBody/content/application~1json/schema/properties/payload`);
    if (!validate) throw new Error(`no payload schema for ${id}`);
    return validate(value) ? 'ok' : `${id}: ${ajv.errorsText(validate.errors)}`;
  };

  it('all compile', () => {
    for (const name of Object.keys(doc.components.schemas)) expect(() => schema(name), name).not.toThrow();
  });

  it('accept the examples of the face files and of the error responses', () => {
    const latest = catalog.platform.latest;
    let checked = 0;
    for (const action of catalog.faces.flatMap((f) => f.actions)) {
      if (!action.variants.some((v) => v.versions.includes(latest))) continue;
      for (const example of action.examples) {
        expect(acceptsPayload(action.id, example.payload)).toBe('ok');
        expect(accepts(`${action.typeName}Result`, example.result)).toBe('ok');
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(3);
    for (const example of Object.values(doc.paths['/do'].post.requestBody.content['application/json'].examples as Json)) {
      expect(accepts('DoRequest', example.value)).toBe('ok');
    }
    for (const response of Object.values(doc.components.responses as Json)) {
      for (const example of Object.values((response.content?.['application/json']?.examples ?? {}) as Json)) {
        expect(accepts('ErrorEnvelope', (resolve(doc, example.$ref) as Json).value)).toBe('ok');
      }
    }
  });

  it('take an error code the document does not list, as a newer server may answer, but not a code that is no string', () => {
    const envelope = (code: unknown) => ({ error: { type: 'api_error', code, message: 'Something new.', docUrl: '/docs/errors.md#something_new' }, meta: { timing: 1, requestId: 'req_1', version: '0.1.0' } });
    expect(accepts('ErrorEnvelope', envelope('something_new'))).toBe('ok');
    expect(accepts('ErrorEnvelope', envelope('card_declined'))).toBe('ok');
    expect(accepts('ErrorEnvelope', envelope(402))).not.toBe('ok');
    const known = (doc.components.schemas.Error.properties.code.anyOf as Json[]).find((branch) => branch.enum)!.enum as string[];
    expect(known).toEqual(expect.arrayContaining(['card_declined', 'payload_invalid', 'model_not_available']));
  });

  it('refuse a bad POST /do envelope in one message', () => {
    const validate = schema('DoRequest');
    expect(validate({ face: 'nope', action: 'login', payload: {} })).toBe(false);
    expect(validate.errors!.map((e) => `${e.instancePath} ${e.message}`)).toEqual(['/face must be equal to one of the allowed values']);
  });

  it('accept the event body shown in docs/events.md, and refuse it as another type', () => {
    const page = emitDocs(catalog).get('docs/events.md')!;
    const body = JSON.parse(/## Event body[\s\S]*?```json\n([\s\S]*?)\n```/.exec(page)![1]!) as Json;
    const event = catalog.faces.flatMap((f) => f.events).find((e) => e.type === body.type)!;
    expect(accepts(`Event_${event.typeName}`, body)).toBe('ok');
    expect(accepts('Event', body)).toBe('ok');
    const other = catalog.faces.flatMap((f) => f.events).find((e) => e.type !== body.type)!;
    expect(accepts(`Event_${other.typeName}`, body)).not.toBe('ok');
  });
});
