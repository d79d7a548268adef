/**
 * Webhooks (docs/contract.md § Webhooks) with real peers: a receiving HTTP server checks every delivery with the reference
 * `standardwebhooks` verifier. Covers subscriptions and their secrets, the event body, retries with growing
 * gaps, Retry-After, 410, failure and replay, test pings, secret rotation, patterns, partitions, and that
 * rolled-back work and idempotent replays send nothing.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { platform } from '../../generated/server/platform.js';
import { versionInForce } from '../../src/spec/version-in-force.js';
import { isPrivateAddress } from '../../src/core/webhook-urls.js';
import { WebhookWorker } from '../../src/faces/webhooks/worker.js';
import { startReceiver, verified, type Receiver } from '../helpers/receiver.js';
import { startServer, TEST_WEBHOOKS, type TestServer } from '../helpers/server.js';

let server: TestServer;
let receiver: Receiver;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());
afterEach(() => receiver?.close());

let n = 0;
const email = () => `hook-${Date.now()}-${++n}@example.com`;
const signup = (address = email()) => ({ face: 'auth', action: 'signup', payload: { email: address, password: 'correct horse' } });
const webhooks = (action: string, payload: Record<string, unknown>, headers?: Record<string, string>) =>
  server.post({ face: 'webhooks', action, payload }, headers ? { headers } : {});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A receiver and an endpoint of entity `entity` subscribed to `eventTypes`. */
async function subscribe(eventTypes: string[] = ['auth.*'], entity = `hooks-${++n}`) {
  receiver = await startReceiver();
  const created = await webhooks('create', { url: receiver.url, eventTypes }, { 'x-entity-id': entity });
  expect(created.status).toBe(200);
  const headers = { 'x-entity-id': entity };
  return { endpoint: created.body.data as { id: string; secret: string }, headers };
}

describe('subscriptions', () => {
  it('returns the whsec_ secret once, and never again', async () => {
    const { endpoint, headers } = await subscribe();
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
    const got = await webhooks('get', { id: endpoint.id }, headers);
    const listed = await webhooks('list', {}, headers);
    expect(got.body.data).toMatchObject({ id: endpoint.id, url: receiver.url, eventTypes: ['auth.*'], status: 'enabled' });
    expect(JSON.stringify([got.body, listed.body])).not.toContain('whsec_');
    expect(listed.body.data.items.map((e: { id: string }) => e.id)).toEqual([endpoint.id]);
  });

  it('refuses patterns that match no event type', async () => {
    receiver = await startReceiver();
    const reply = await webhooks('create', { url: receiver.url, eventTypes: ['auth.*', 'nope.*'] });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toMatchObject({ code: 'payload_invalid', param: '/payload/eventTypes/1' });
  });

  it('keeps endpoints to their entity', async () => {
    const { endpoint } = await subscribe(['*']);
    const elsewhere = await webhooks('get', { id: endpoint.id }, { 'x-entity-id': 'someone-else' });
    expect(elsewhere.status).toBe(404);
    expect((await server.post(signup(), { headers: { 'x-entity-id': 'someone-else' } })).status).toBe(200);
    await sleep(300);
    expect(receiver.deliveries).toEqual([]);
  });
});

describe('delivery', () => {
  it('delivers a signed event that the reference verifier accepts', async () => {
    const { endpoint, headers } = await subscribe(['auth.signup.succeeded']);
    const address = email();
    const call = await server.post(signup(address), { headers: { ...headers, 'x-idempotency-key': `signup-${n}` } });
    await expect.poll(() => receiver.deliveries.length).toBe(1);
    const [delivery] = receiver.deliveries;
    expect(delivery!.headers['content-type']).toBe('application/json');
    expect(Math.abs(Number(delivery!.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(5);
    const event = verified(delivery!, endpoint.secret);
    expect(event).toEqual({
      id: delivery!.id,
      type: 'auth.signup.succeeded',
      timestamp: expect.any(String),
      // The signup named no version: the one in force today (a version takes effect on its date).
      apiVersion: versionInForce(platform, new Date().toISOString().slice(0, 10)),
      livemode: false,
      entityId: headers['x-entity-id'],
      request: { id: call.body.meta.requestId, idempotencyKey: `signup-${n}` },
      data: { user: call.body.data.user },
    });
    expect(delivery!.id).toMatch(/^evt_/);
    expect(() => verified(delivery!, 'whsec_' + Buffer.from('another secret of 24b').toString('base64'))).toThrow();
  });

  it('retries a failing receiver with growing gaps until it succeeds, under one webhook-id', async () => {
    const { headers } = await subscribe();
    receiver.answer = (_d, i) => ({ status: i < 2 ? 500 : 200 });
    await server.post(signup(), { headers });
    await expect.poll(() => receiver.deliveries.length, { timeout: 3000 }).toBe(3);
    expect(new Set(receiver.deliveries.map((d) => d.id)).size).toBe(1);
    await expect.poll(async () => (await webhooks('deliveries', {}, headers)).body.data.items[0].status).toBe('succeeded');
    const [listed] = (await webhooks('deliveries', {}, headers)).body.data.items;
    expect(listed.attempts.map((a: { responseStatus: number; succeeded: boolean }) => [a.responseStatus, a.succeeded])).toEqual([
      [500, false],
      [500, false],
      [200, true],
    ]);
    expect(listed.attempts.every((a: { durationMs: number }) => a.durationMs >= 0)).toBe(true);
    // The schedule (150 and 450 ms after the first attempt) read off the sender's own clock: a loaded machine can
    // only send a retry later, while the gaps seen at the receiver also carry each request's time in flight.
    const [first, second, third] = listed.attempts.map((a: { startedAt: string }) => Date.parse(a.startedAt));
    expect(second - first).toBeGreaterThanOrEqual(150);
    expect(third - first).toBeGreaterThanOrEqual(450);
  });

  it('waits out a Retry-After longer than the schedule', async () => {
    const { headers } = await subscribe();
    receiver.answer = (_d, i) => (i === 0 ? { status: 503, headers: { 'retry-after': '1' } } : { status: 200 });
    await server.post(signup(), { headers });
    await expect.poll(() => receiver.deliveries.length, { timeout: 3000 }).toBe(2);
    expect(receiver.deliveries[1]!.at - receiver.deliveries[0]!.at).toBeGreaterThanOrEqual(1000);
  });

  it('waits at most a day, whatever Retry-After a receiver sends', async () => {
    const { headers } = await subscribe();
    receiver.answer = () => ({ status: 503, headers: { 'retry-after': '300000000000' } });
    await server.post(signup(), { headers });
    await expect.poll(async () => (await webhooks('deliveries', {}, headers)).body.data.items[0]?.attempts.length).toBe(1);
    const [delivery] = (await webhooks('deliveries', {}, headers)).body.data.items;
    expect(delivery.status).toBe('pending');
    const wait = Date.parse(delivery.nextAttemptAt) - Date.now();
    expect(wait).toBeGreaterThan(23.9 * 3_600_000);
    expect(wait).toBeLessThanOrEqual(24 * 3_600_000);
    await sleep(300);
    expect(receiver.deliveries).toHaveLength(1);
  });

  it('disables an endpoint that answers 410 Gone', async () => {
    const { endpoint, headers } = await subscribe();
    receiver.answer = () => ({ status: 410 });
    await server.post(signup(), { headers });
    await expect.poll(async () => (await webhooks('get', { id: endpoint.id }, headers)).body.data.status).toBe('disabled');
    expect((await webhooks('get', { id: endpoint.id }, headers)).body.data.disabledReason).toBe('gone');
    await server.post(signup(), { headers });
    await sleep(300);
    expect(receiver.deliveries).toHaveLength(1);
  });

  it('marks a delivery failed after the last attempt, and replays it', async () => {
    const { endpoint, headers } = await subscribe();
    receiver.answer = () => ({ status: 500 });
    await server.post(signup(), { headers });
    await expect.poll(async () => (await webhooks('deliveries', { status: 'failed' }, headers)).body.data.items.length, { timeout: 3000 }).toBe(1);
    expect(receiver.deliveries).toHaveLength(3);
    const eventId = receiver.deliveries[0]!.id;
    receiver.answer = () => ({ status: 200 });
    const replay = await webhooks('replay', { eventId }, headers);
    expect(replay.body.data.deliveries).toEqual([{ id: expect.stringMatching(/^dlv_/), endpointId: endpoint.id }]);
    await expect.poll(() => receiver.of(eventId).length).toBe(4);
    expect(verified(receiver.deliveries[3]!, endpoint.secret).id).toBe(eventId);
    const missing = await webhooks('replay', { eventId: 'evt_0000000000000000000000000' }, headers);
    expect(missing.status).toBe(404);
  });

  it('sends a test ping to that endpoint only', async () => {
    const { endpoint, headers } = await subscribe(['keys.*']);
    const other = await startReceiver();
    try {
      await webhooks('create', { url: other.url, eventTypes: ['*'] }, headers);
      const ping = await webhooks('test', { id: endpoint.id }, headers);
      expect(ping.body.data.eventId).toMatch(/^evt_/);
      await expect.poll(() => receiver.deliveries.length).toBe(1);
      const event = verified(receiver.deliveries[0]!, endpoint.secret);
      expect(event).toMatchObject({ id: ping.body.data.eventId, type: 'webhooks.endpoint.ping', data: { endpointId: endpoint.id } });
      await sleep(200);
      expect(other.deliveries).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('sends events matching the patterns only', async () => {
    const { headers } = await subscribe(['keys.*']);
    await server.post(signup(), { headers });
    const created = await server.post({ face: 'keys', action: 'create', payload: { scopes: ['ai:generate'], entities: ['acme'] } }, { headers });
    await expect.poll(() => receiver.deliveries.length).toBe(1);
    const event = JSON.parse(receiver.deliveries[0]!.body);
    expect(event.type).toBe('keys.key.created');
    expect(event.data.id).toBe(created.body.data.id);
    // The secret of a new key is never part of an event.
    expect(receiver.deliveries[0]!.body).not.toContain(created.body.data.key);
  });
});

describe('what is not sent', () => {
  it('sends nothing for an atomic batch that rolled back, nor twice for an idempotent replay', async () => {
    const { headers } = await subscribe();
    const address = email();
    const batch = { face: 'batch', action: 'run', payload: { mode: 'atomic', requests: [signup(address), signup(address)] } };
    expect((await server.post(batch, { headers })).status).toBe(409);
    const key = { ...headers, 'x-idempotency-key': `once-${n}` };
    await server.post(signup(address), { headers: key });
    await server.post(signup(address), { headers: key });
    await sleep(400);
    expect(receiver.deliveries.map((d) => JSON.parse(d.body).data.user.email)).toEqual([address]);
  });
});

describe('secret rotation', () => {
  it('signs with both secrets during the overlap, and with the new one only after', async () => {
    const { endpoint, headers } = await subscribe();
    const rotated = await webhooks('rotateSecret', { id: endpoint.id, overlapSeconds: 3600 }, headers);
    const secret = rotated.body.data.secret as string;
    expect(secret).not.toBe(endpoint.secret);
    await server.post(signup(), { headers });
    await expect.poll(() => receiver.deliveries.length).toBe(1);
    expect(String(receiver.deliveries[0]!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verified(receiver.deliveries[0]!, secret).type).toBe('auth.signup.succeeded');
    expect(verified(receiver.deliveries[0]!, endpoint.secret).type).toBe('auth.signup.succeeded');

    const again = (await webhooks('rotateSecret', { id: endpoint.id, overlapSeconds: 0 }, headers)).body.data.secret as string;
    await server.post(signup(), { headers });
    await expect.poll(() => receiver.deliveries.length).toBe(2);
    expect(verified(receiver.deliveries[1]!, again).type).toBe('auth.signup.succeeded');
    expect(() => verified(receiver.deliveries[1]!, secret)).toThrow();
  });
});

describe('endpoint changes', () => {
  it('updates, disables, re-enables and deletes an endpoint', async () => {
    const { endpoint, headers } = await subscribe();
    const disabled = await webhooks('update', { id: endpoint.id, enabled: false, eventTypes: ['*'], description: 'all of it' }, headers);
    expect(disabled.body.data).toMatchObject({ status: 'disabled', disabledReason: 'disabled', eventTypes: ['*'], description: 'all of it' });
    await server.post(signup(), { headers });
    await sleep(200);
    expect(receiver.deliveries).toEqual([]);
    await webhooks('update', { id: endpoint.id, enabled: true }, headers);
    await server.post(signup(), { headers });
    await expect.poll(() => receiver.deliveries.length).toBe(1);
    const deleted = await webhooks('delete', { id: endpoint.id }, headers);
    expect(deleted.body.data).toEqual({ id: endpoint.id, deleted: true });
    expect((await webhooks('get', { id: endpoint.id }, headers)).status).toBe(404);
    expect((await webhooks('deliveries', { endpointId: endpoint.id }, headers)).body.data.items).toEqual([]);
  });
});

describe('where webhooks may go', () => {
  let strict: TestServer;
  beforeAll(async () => {
    strict = await startServer({ webhooks: { allowPrivateUrls: false }, webhookWorker: false });
  });
  afterAll(() => strict.close());

  it.each([
    ['test', 'http://127.0.0.1:8080/hooks', /127\.0\.0\.1 is not a public address/],
    ['test', 'https://localhost/hooks', /loopback/],
    ['test', 'https://10.1.2.3/hooks', /not a public address/],
    ['test', 'https://[::1]/hooks', /not a public address/],
    ['test', 'https://169.254.169.254/latest', /not a public address/],
    ['test', 'ftp://example.com/hooks', /http or https/],
    ['test', 'not a url', /not an absolute URL/],
    ['live', 'http://example.com/hooks', /must use https/],
  ])('refuses a %s-mode endpoint at %s', async (mode, url, message) => {
    const key = (await strict.key({ mode: mode as 'live' | 'test' })).secret;
    const reply = await strict.post({ face: 'webhooks', action: 'create', payload: { url, eventTypes: ['*'] } }, { headers: { authorization: `Bearer ${key}` } });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toMatchObject({ code: 'webhook_url_invalid', param: '/payload/url' });
    expect(reply.body.error.message).toMatch(message);
  });

  it('checks the address again when delivering, not only when the endpoint was saved', async () => {
    // Saved where private addresses were allowed, delivered by a worker where they are not.
    const lax = await startServer({ webhookWorker: false });
    receiver = await startReceiver();
    const worker = new WebhookWorker(lax.db, { ...TEST_WEBHOOKS, allowPrivateUrls: false });
    try {
      await lax.post({ face: 'webhooks', action: 'create', payload: { url: receiver.url, eventTypes: ['*'] } });
      await lax.post(signup());
      worker.start();
      const attempts = async () => (await lax.post({ face: 'webhooks', action: 'deliveries', payload: {} })).body.data.items[0].attempts;
      await expect.poll(async () => (await attempts()).length).toBeGreaterThan(0);
      expect((await attempts())[0].error).toMatch(/^address not allowed: 127\.0\.0\.1 is not a public address/);
      expect(receiver.deliveries).toEqual([]);
    } finally {
      await worker.stop();
      await lax.close();
    }
  });

  it('checks the addresses a name resolves to on every connection, not only the name', async () => {
    // The machine's own name resolves to a loopback address here: a name, not an address, in the URL, so
    // only the lookup made when connecting can refuse it (as it would a name rebound to a private address).
    const name = hostname();
    const addresses = await lookup(name, { all: true });
    expect(addresses.length > 0 && addresses.every((a) => isPrivateAddress(a.address)), `${name} must resolve to private addresses`).toBe(true);
    const lax = await startServer({ webhookWorker: false });
    receiver = await startReceiver();
    const worker = new WebhookWorker(lax.db, { ...TEST_WEBHOOKS, allowPrivateUrls: false });
    try {
      const url = receiver.url.replace('127.0.0.1', name);
      await lax.post({ face: 'webhooks', action: 'create', payload: { url, eventTypes: ['*'] } });
      await lax.post(signup());
      worker.start();
      const attempts = async () => (await lax.post({ face: 'webhooks', action: 'deliveries', payload: {} })).body.data.items[0].attempts;
      await expect.poll(async () => (await attempts()).length).toBeGreaterThan(0);
      expect((await attempts())[0].error).toBe(`address not allowed: ${name} resolves to an address that is not public`);
      expect(receiver.deliveries).toEqual([]);
    } finally {
      await worker.stop();
      await lax.close();
    }
  });
});
