/**
 * What the generated client gives a program beyond a call: an error class per error type, `.withResponse()`,
 * per-call time-outs and headers, its `User-Agent`, list actions walked page by page (by `startingAfter` and
 * by cursor) or collected with `toArray`, `webhooks.unwrap` over real Standard Webhooks signatures, and the
 * test headers `webhooks.generateTestHeaders` signs. Against a local server that
 * answers as each test tells it.
 */
import { WebhookVerificationError } from 'standardwebhooks';
import { signatures } from '../../src/faces/webhooks/message.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  createClient,
  DEFAULT_TIMEOUT_MS,
  DispatchConnectionError,
  DispatchError,
  IdempotencyError,
  InvalidRequestError,
  NotFoundError,
  PermissionError,
  ProviderError,
  RateLimitError,
  ServerError,
  TimeoutError,
  USER_AGENT,
  webhooks,
  type ErrorCode,
} from '../../generated/client/index.js';
import { json, KEY, META, startWireServer, type Received, type Respond, type WireServer } from '../helpers/wire.js';

let server: WireServer;
let received: Received[];
let respond: (request: Received) => Respond;

beforeAll(async () => {
  server = await startWireServer((request, res) => {
    received.push(request);
    respond(request)(res);
  });
});
afterAll(() => server.close());
beforeEach(() => {
  received = [];
  respond = () => json(200, { data: { ok: true }, meta: META });
});

const client = () => createClient({ baseUrl: server.url, apiKey: KEY, entityId: 'acme', maxRetries: 0 });
const refusal = (status: number, type: string, code: string, headers: Record<string, string> = {}) =>
  json(status, { error: { type, code, message: `${code}.` }, meta: META }, headers);

describe('errors', () => {
  it.each([
    [400, 'invalid_request_error', 'payload_invalid', InvalidRequestError],
    [401, 'authentication_error', 'api_key_invalid', AuthenticationError],
    [403, 'permission_error', 'insufficient_scope', PermissionError],
    [404, 'not_found_error', 'resource_not_found', NotFoundError],
    [409, 'idempotency_error', 'idempotency_key_in_use', IdempotencyError],
    [429, 'rate_limit_error', 'rate_limit_exceeded', RateLimitError],
    [500, 'api_error', 'internal_error', ServerError],
    [502, 'provider_error', 'provider_failed', ProviderError],
    [504, 'timeout_error', 'timeout', TimeoutError],
  ] as const)('answers %i %s with its class, a DispatchError', async (status, type, code, ErrorClass) => {
    respond = () => refusal(status, type, code, { 'retry-after': '7' });
    const error = await client().keys.get({ id: 'key_01JD7N9V3W2K8Q5R6T7Y8Z9A0B' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ErrorClass);
    expect(error).toBeInstanceOf(DispatchError);
    expect(error).toMatchObject({ status, type, code, name: ErrorClass.name, requestId: META.requestId });
    if (error instanceof RateLimitError) expect(error.retryAfterSeconds).toBe(7);
  });

  it('keeps a type it does not know as a plain DispatchError, and types code as the catalogue\'s codes', async () => {
    respond = () => refusal(418, 'teapot_error', 'internal_error');
    const error = (await client().keys.get({ id: 'key_01JD7N9V3W2K8Q5R6T7Y8Z9A0B' }).catch((e: unknown) => e)) as DispatchError;
    expect(error.constructor).toBe(DispatchError);
    const known: ErrorCode = 'internal_error';
    expect(error.code).toBe(known);
    // @ts-expect-error: not a code of the catalogue
    const unknown: ErrorCode = 'no_such_code';
    expect(unknown).toBe('no_such_code');
  });
});

describe('calls', () => {
  it('give the whole answer with .withResponse(), from the same single request', async () => {
    respond = () => json(200, { data: { ok: true }, meta: META }, { 'ratelimit': 'limit=10, remaining=9, reset=1' });
    const call = client().keys.get({ id: 'key_01JD7N9V3W2K8Q5R6T7Y8Z9A0B' });
    const answer = await call.withResponse();
    expect(await call).toEqual({ ok: true });
    expect(answer).toMatchObject({ data: { ok: true }, meta: META, requestId: META.requestId, status: 200, attempts: 1 });
    expect(answer.headers.get('ratelimit')).toBe('limit=10, remaining=9, reset=1');
    expect(received).toHaveLength(1);
  });

  it('send per-call headers over the client\'s, and the User-Agent of the package', async () => {
    const custom = createClient({ baseUrl: server.url, apiKey: KEY, entityId: 'acme', headers: { 'x-trace': 'client', 'x-team': 'ops' } });
    await custom.keys.get({ id: 'key_01JD7N9V3W2K8Q5R6T7Y8Z9A0B' }, { headers: { 'x-trace': 'call', authorization: 'Bearer forged' } });
    const [request] = received;
    expect(request!.headers['x-trace']).toBe('call');
    expect(request!.headers['x-team']).toBe('ops');
    expect(request!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request!.headers['user-agent']).toBe(USER_AGENT);
    expect(USER_AGENT).toMatch(/^unified-dispatch-client\/\d+\.\d+\.\d+$/);
  });

  it('wait the per-call timeoutMs, apart from the server-side timeout, and by default past the server\'s longest', async () => {
    respond = () => () => undefined; // never answers
    const started = Date.now();
    const error = await client().keys.get({ id: 'key_01JD7N9V3W2K8Q5R6T7Y8Z9A0B' }, { timeoutMs: 150, timeout: 60_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DispatchConnectionError);
    expect((error as DispatchConnectionError).timedOut).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(received[0]!.body.options).toEqual({ timeout: 60_000 });
    expect(DEFAULT_TIMEOUT_MS).toBeGreaterThan(60_000);
  });
});

describe('list actions', () => {
  const users = Array.from({ length: 5 }, (_, i) => ({ id: `usr_${i}`, email: `u${i}@example.com` }));

  it('walk every page by startingAfter, from the promise and from a page', async () => {
    respond = (request) => {
      const after = request.body.payload.startingAfter as string | undefined;
      const start = after === undefined ? 0 : users.findIndex((u) => u.id === after) + 1;
      return json(200, { data: { items: users.slice(start, start + 2), hasMore: start + 2 < users.length }, meta: META });
    };
    const seen: string[] = [];
    for await (const user of client().auth.listUsers({ limit: 2 })) seen.push(user.id);
    expect(seen).toEqual(users.map((u) => u.id));
    expect(received.map((r) => r.body.payload)).toEqual([{ limit: 2 }, { limit: 2, startingAfter: 'usr_1' }, { limit: 2, startingAfter: 'usr_3' }]);
    received = [];

    const first = await client().auth.listUsers({ limit: 2 });
    expect(first.items.map((u) => u.id)).toEqual(['usr_0', 'usr_1']);
    expect(JSON.parse(JSON.stringify(first))).toEqual({ items: users.slice(0, 2), hasMore: true });
    const second = await first.nextPage();
    const third = await second!.nextPage();
    expect(third!.items.map((u) => u.id)).toEqual(['usr_4']);
    expect(await third!.nextPage()).toBeNull();
  });

  it('collect every page into one array with toArray, and ask for no page past a limit', async () => {
    respond = (request) => {
      const after = request.body.payload.startingAfter as string | undefined;
      const start = after === undefined ? 0 : users.findIndex((u) => u.id === after) + 1;
      return json(200, { data: { items: users.slice(start, start + 2), hasMore: start + 2 < users.length }, meta: META });
    };
    const all = await client().auth.listUsers({ limit: 2 }).toArray();
    expect(all).toEqual(users);
    expect(received).toHaveLength(3);
    received = [];

    const some = await client().auth.listUsers({ limit: 2 }).toArray({ limit: 3 });
    expect(some.map((u) => u.id)).toEqual(['usr_0', 'usr_1', 'usr_2']);
    expect(received.map((r) => r.body.payload)).toEqual([{ limit: 2 }, { limit: 2, startingAfter: 'usr_1' }]);
    const call = client().auth.listUsers({ limit: 2 });
    await call;
    await expect(call.toArray({ limit: 0 })).rejects.toThrow(RangeError);
  });

  it('send an idempotency key with the first page only, the pages after being requests of their own', async () => {
    respond = (request) => json(200, { data: { items: [users[request.body.payload.startingAfter ? 1 : 0]], hasMore: !request.body.payload.startingAfter }, meta: META });
    const seen = [];
    for await (const user of client().auth.listUsers({ limit: 1 }, { idempotencyKey: 'list-1' })) seen.push(user.id);
    expect(seen).toEqual(['usr_0', 'usr_1']);
    expect(received.map((r) => r.headers['x-idempotency-key'])).toEqual(['list-1', undefined]);
  });

  it("continue after the field the face file names (pageBy), and refuse to guess when the page lacks it", async () => {
    const names = ['alpha', 'beta', 'gamma'];
    respond = (request) => {
      const start = request.body.payload.startingAfter ? names.indexOf(request.body.payload.startingAfter as string) + 1 : 0;
      return json(200, { data: { items: names.slice(start, start + 2).map((name) => ({ id: `tmpl_${name}`, name })), hasMore: start + 2 < names.length }, meta: META });
    };
    const seen: string[] = [];
    for await (const template of client().email.listTemplates({ limit: 2 })) seen.push(template.name);
    expect(seen).toEqual(names);
    expect(received[1]!.body.payload).toEqual({ limit: 2, startingAfter: 'beta' });

    respond = () => json(200, { data: { items: [], hasMore: true }, meta: META });
    await expect(client().auth.listUsers()).rejects.toThrow(/auth\.listUsers says more pages follow but gives no id of its last item/);
  });

  it('walk every page by cursor where the action pages so', async () => {
    respond = (request) => {
      const cursor = request.body.payload.cursor as string | undefined;
      return json(200, {
        data: cursor ? { items: [{ key: 'b.txt' }], hasMore: false } : { items: [{ key: 'a.txt' }], hasMore: true, nextCursor: 'a.txt' },
        meta: META,
      });
    };
    const keys: string[] = [];
    for await (const object of client().storage.list({ prefix: '' })) keys.push(object.key);
    expect(keys).toEqual(['a.txt', 'b.txt']);
    expect(received[1]!.body.payload).toEqual({ prefix: '', cursor: 'a.txt' });
  });
});

describe('webhooks.unwrap', () => {
  const secret = `whsec_${Buffer.from('a'.repeat(32)).toString('base64')}`;
  const other = `whsec_${Buffer.from('b'.repeat(32)).toString('base64')}`;
  const event = {
    id: 'evt_01JD7N9V3W2K8Q5R6T7Y8Z9A0B',
    type: 'keys.key.revoked',
    timestamp: '2026-09-01T12:00:00.000Z',
    apiVersion: '2026-09-01',
    livemode: false,
    entityId: 'acme',
    request: { id: 'req_01JD7N9V3W2K8Q5R6T7Y8Z9A0B', idempotencyKey: null },
    data: { id: 'key_01JD7N9V3W2K8Q5R6T7Y8Z9A0B' },
  };
  const body = JSON.stringify(event);
  /** Headers as the server's delivery worker signs them, with a previous secret during a rotation. */
  const signed = (key: string, at = new Date(), previous?: string) => ({
    'webhook-id': event.id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signatures(
      { secret: key, previous_secret: previous ?? null, previous_secret_expires_at: previous ? new Date(Date.now() + 3_600_000).toISOString() : null },
      event.id,
      at,
      body,
    ),
  });

  it('returns the event of a delivery signed with the secret, from Node headers or fetch Headers, body as text or bytes', () => {
    const unwrapped = webhooks.unwrap(body, signed(secret), secret);
    expect(unwrapped).toEqual(event);
    if (unwrapped.type === 'keys.key.revoked') expect(typeof unwrapped.data).toBe('object');
    expect(webhooks.unwrap(new TextEncoder().encode(body), new Headers(signed(secret)), secret)).toEqual(event);
  });

  it('takes either signature during a rotation, and headers Node repeated', () => {
    const headers = signed(other, new Date(), secret);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(webhooks.unwrap(body, headers, other).id).toBe(event.id);
    expect(webhooks.unwrap(body, headers, secret).id).toBe(event.id);
    const [first, second] = headers['webhook-signature'].split(' ');
    expect(webhooks.unwrap(body, { ...headers, 'webhook-signature': [first!, second!] }, secret).id).toBe(event.id);
  });

  it('refuses another secret, a changed body, an old timestamp and a missing header', () => {
    expect(() => webhooks.unwrap(body, signed(secret), other)).toThrow(WebhookVerificationError);
    expect(() => webhooks.unwrap(body.replace('acme', 'evil'), signed(secret), secret)).toThrow(WebhookVerificationError);
    expect(() => webhooks.unwrap(body, signed(secret, new Date(Date.now() - 10 * 60_000)), secret)).toThrow(WebhookVerificationError);
    const { 'webhook-signature': _gone, ...unsigned } = signed(secret);
    expect(() => webhooks.unwrap(body, unsigned, secret)).toThrow(/webhook-signature/);
  });
});

describe('webhooks.generateTestHeaders', () => {
  const secret = `whsec_${Buffer.from('c'.repeat(32)).toString('base64')}`;
  const event = { id: 'evt_test_1', type: 'keys.key.created', data: { id: 'key_1' } };
  const payload = JSON.stringify(event);

  it('signs a payload so that unwrap returns it, under the payload\'s id unless given one', () => {
    const headers = webhooks.generateTestHeaders({ payload, secret });
    expect(headers['webhook-id']).toBe('evt_test_1');
    expect(webhooks.unwrap(payload, headers, secret)).toEqual(event);
    const named = webhooks.generateTestHeaders({ payload, secret, id: 'msg_7' });
    expect(named['webhook-id']).toBe('msg_7');
    expect(webhooks.unwrap(payload, named, secret)).toEqual(event);
  });

  it('signs as the delivery worker does: the same signature for the same id, time and body', () => {
    const at = new Date('2026-09-01T12:00:00.000Z');
    const headers = webhooks.generateTestHeaders({ payload, secret, timestamp: at });
    expect(headers['webhook-timestamp']).toBe(String(at.getTime() / 1000));
    expect(headers['webhook-signature']).toBe(signatures({ secret, previous_secret: null, previous_secret_expires_at: null }, 'evt_test_1', at, payload));
    expect(webhooks.generateTestHeaders({ payload, secret, timestamp: at.getTime() / 1000 })).toEqual(headers);
  });

  it('gives headers unwrap refuses for a tampered body, another secret or a timestamp too old', () => {
    const headers = webhooks.generateTestHeaders({ payload, secret });
    expect(() => webhooks.unwrap(payload.replace('key_1', 'key_2'), headers, secret)).toThrow(WebhookVerificationError);
    expect(() => webhooks.unwrap(payload, headers, `whsec_${Buffer.from('d'.repeat(32)).toString('base64')}`)).toThrow(WebhookVerificationError);
    const old = webhooks.generateTestHeaders({ payload, secret, timestamp: Math.floor(Date.now() / 1000) - 600 });
    expect(() => webhooks.unwrap(payload, old, secret)).toThrow(WebhookVerificationError);
  });

  it('asks for an id when the payload has none, and refuses a time that is not one', () => {
    expect(() => webhooks.generateTestHeaders({ payload: 'plain text', secret })).toThrow(/pass `id`/);
    expect(webhooks.generateTestHeaders({ payload: 'plain text', secret, id: 'msg_1' })['webhook-id']).toBe('msg_1');
    expect(() => webhooks.generateTestHeaders({ payload, secret, timestamp: Number.NaN })).toThrow(/not a valid time/);
  });
});
