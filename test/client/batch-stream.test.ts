/**
 * The generated client's batches, streams and webhook event types against the real server: typed batch
 * results, an atomic batch that leaves nothing behind, streamed answers that match the plain ones, import
 * progress, and a real delivery read as a `WebhookEvent`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  API_VERSION,
  createClient,
  DispatchError,
  type AuthUser,
  type BatchRequest,
  type DispatchClient,
  type StreamEvent,
  type WebhookEvent,
} from '../../generated/client/index.js';
import { startReceiver } from '../helpers/receiver.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let client: DispatchClient;
beforeAll(async () => {
  server = await startServer();
  client = createClient({ baseUrl: server.url, apiKey: server.adminKey, entityId: 'client-batch-stream' });
});
afterAll(() => server.close());

let n = 0;
const email = (label: string) => `${label}-${++n}@example.com`;
const PASSWORD = 'correct horse';

async function collect(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe('client.batch', () => {
  it('runs a best-effort batch with typed results, successes and failures in request order', async () => {
    const ada = email('ada');
    const results = await client.batch([
      { id: 'signup', face: 'auth', action: 'signup', payload: { email: ada, password: PASSWORD } },
      { face: 'auth', action: 'login', payload: { email: ada, password: 'wrong password' } },
      { face: 'keys', action: 'list', payload: { limit: 1 } },
    ]);
    const [signup, login, keys] = results;
    expect(results).toHaveLength(3);
    expect(signup).toMatchObject({ id: 'signup', status: 200 });
    expect(login).toMatchObject({ id: '1', status: 401, error: { code: 'invalid_credentials', type: 'authentication_error' } });
    expect(keys).toMatchObject({ id: '2', status: 200 });
    // Each result is typed by its request: narrowing on `error` leaves that action's result.
    if ('error' in signup) throw new Error('signup failed');
    const user: AuthUser = signup.data.user;
    expect(user.email).toBe(ada);
    if ('error' in keys) throw new Error('keys.list failed');
    expect(keys.data.items).toHaveLength(1);
    expect(typeof keys.data.hasMore).toBe('boolean');
    if (!('error' in login)) throw new Error('login should have failed');
    expect(login.error.message).toBeTruthy();
  });

  it('throws batch_aborted for a failed atomic batch, and nothing of it took effect', async () => {
    const grace = email('grace');
    const requests = [
      { face: 'auth', action: 'signup', payload: { email: grace, password: PASSWORD } },
      { face: 'auth', action: 'signup', payload: { email: grace, password: PASSWORD } },
    ] as const;
    const error = await client.batch(requests, { mode: 'atomic' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DispatchError);
    expect(error).toMatchObject({ status: 409, type: 'batch_error', code: 'batch_aborted', param: '/payload/requests/1' });
    expect((error as DispatchError).details?.results).toEqual([
      { id: '0', outcome: 'succeeded' },
      { id: '1', outcome: 'failed', status: 409, error: expect.objectContaining({ code: 'email_taken' }) },
    ]);
    // The first signup was rolled back: the address is still free.
    const { user } = await client.auth.signup({ email: grace, password: PASSWORD });
    expect(user.email).toBe(grace);

    // An atomic batch that succeeds returns its typed results like a best-effort one.
    const [login] = await client.batch([{ face: 'auth', action: 'login', payload: { email: grace, password: PASSWORD } }], { mode: 'atomic' });
    expect('error' in login ? login.error : login.data.user.id).toBe(user.id);
  });

  it('refuses an atomic batch of an action with outside effects before anything runs', async () => {
    const requests: BatchRequest[] = [{ face: 'ai', action: 'generate', payload: { model: 'm', prompt: 'p' } }];
    await expect(client.batch(requests, { mode: 'atomic' })).rejects.toMatchObject({ status: 400, code: 'atomic_not_supported' });
  });

  it('types requests by their action', () => {
    // Type-level only: these calls are never made.
    const typed = (c: DispatchClient) => [
      // @ts-expect-error: signup needs a password
      c.batch([{ face: 'auth', action: 'signup', payload: { email: 'x@example.com' } }]),
      // @ts-expect-error: there is no auth.delete
      c.batch([{ face: 'auth', action: 'delete', payload: {} }]),
      // @ts-expect-error: batches do not nest
      c.batch([{ face: 'batch', action: 'run', payload: { mode: 'atomic', requests: [] } }]),
      // @ts-expect-error: the mode is atomic or bestEffort
      c.batch([], { mode: 'allOrNothing' }),
    ];
    expect(typed).toBeTypeOf('function');
    // The batch face is the `batch()` method, not a face property.
    expect(typeof client.batch).toBe('function');
    expect('run' in client.batch).toBe(false);
  });
});

describe('streams', () => {
  it('streams ai.generate: the deltas concatenate to the result, which equals the plain answer', async () => {
    const payload = { model: 'test-model', prompt: 'Tell me about rivers', maxTokens: 12 };
    const stream = client.ai.generate.stream(payload);
    const events = await collect(stream);
    const result = await stream;

    expect(events[0]).toMatchObject({ event: 'start', data: { requestId: expect.stringMatching(/^req_/), apiVersion: API_VERSION } });
    const deltas = events.flatMap((e) => (e.event === 'delta' ? [e.data.text] : []));
    expect(deltas.length).toBeGreaterThan(1);
    expect(events.slice(1).every((e) => e.event === 'delta')).toBe(true);
    expect(deltas.join('')).toBe(result.text);
    expect(await client.ai.generate(payload)).toEqual(result);
  });

  it('replays an idempotent stream as its start and stored result', async () => {
    const payload = { model: 'test-model', prompt: 'Once more', maxTokens: 6 };
    const first = client.ai.generate.stream(payload, { idempotencyKey: 'client-stream-replay' });
    const firstEvents = await collect(first);
    const again = client.ai.generate.stream(payload, { idempotencyKey: 'client-stream-replay' });
    const againEvents = await collect(again);
    expect(await again).toEqual(await first);
    expect(firstEvents.some((e) => e.event === 'delta')).toBe(true);
    expect(againEvents.map((e) => e.event)).toEqual(['start']);
  });

  it('streams auth.import: progress up to the total, then the imported users', async () => {
    const users = [1, 2, 3].map((i) => ({ email: email(`import${i}`), password: PASSWORD }));
    const stream = client.auth.import.stream({ users });
    const progress = (await collect(stream)).flatMap((e) => (e.event === 'progress' ? [e.data] : []));
    const result = await stream.finalResult();

    expect(progress.length).toBeGreaterThan(0);
    expect(progress.every((p) => p.total === users.length)).toBe(true);
    expect(progress.map((p) => p.completed)).toEqual([...progress.map((p) => p.completed)].sort((a, b) => a - b));
    expect(progress.at(-1)).toMatchObject({ completed: users.length, total: users.length });
    expect(result.users.map((u) => u.email)).toEqual(users.map((u) => u.email));
  });

  it('throws the DispatchError of a call refused before its stream opens', async () => {
    const stream = client.ai.generate.stream({ model: 'test-model', prompt: '' });
    await expect(stream.finalResult()).rejects.toMatchObject({ status: 400, code: 'payload_invalid', param: '/payload/prompt' });
  });
});

describe('webhook event types', () => {
  it('reads a real delivery as a WebhookEvent narrowed by type', async () => {
    const receiver = await startReceiver();
    try {
      await client.webhooks.create({ url: receiver.url, eventTypes: ['auth.signup.succeeded'] });
      const address = email('hooked');
      const { user } = await client.auth.signup({ email: address, password: PASSWORD }, { idempotencyKey: 'hooked-signup' });
      await expect.poll(() => receiver.deliveries.length, { timeout: 5000 }).toBe(1);

      const event = JSON.parse(receiver.deliveries[0]!.body) as WebhookEvent;
      if (event.type !== 'auth.signup.succeeded') throw new Error(`unexpected event ${event.type}`);
      expect(event.data.user.email).toBe(address);
      expect(event.data.user.id).toBe(user.id);
      expect(event).toMatchObject({
        id: expect.stringMatching(/^evt_/),
        apiVersion: API_VERSION,
        livemode: false,
        entityId: 'client-batch-stream',
        request: { id: expect.stringMatching(/^req_/), idempotencyKey: 'hooked-signup' },
      });
      expect(Number.isNaN(Date.parse(event.timestamp))).toBe(false);
    } finally {
      await receiver.close();
    }
  });
});
