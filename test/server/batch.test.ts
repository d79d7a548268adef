/**
 * Batches (docs/contract.md § Batches) over real HTTP: best-effort results in order, atomic batches that roll back every
 * effect (stored records and emitted events, on SQLite and on PostgreSQL), the checks that refuse an atomic
 * batch before anything runs, the limits, rate limits per request, one idempotency key per batch, and the
 * deadline over the whole batch.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';

let n = 0;
const email = (label: string) => `${label}-${Date.now()}-${++n}@example.com`;
const signup = (address: string, id?: string) => ({ ...(id ? { id } : {}), face: 'auth', action: 'signup', payload: { email: address, password: 'correct horse' } });
const login = (address: string) => ({ face: 'auth', action: 'login', payload: { email: address, password: 'correct horse' } });
const logout = { face: 'auth', action: 'logout', payload: { token: 'sess_unknown' } };
const batch = (mode: 'atomic' | 'bestEffort', requests: unknown[], options?: Record<string, unknown>) => ({
  face: 'batch',
  action: 'run',
  payload: { mode, requests },
  ...(options ? { options } : {}),
});

/** A user exists when logging in with its password works. */
async function exists(server: TestServer, address: string): Promise<boolean> {
  const reply = await server.post(login(address));
  if (reply.status !== 200 && reply.body.error.code !== 'invalid_credentials') throw new Error(JSON.stringify(reply.body));
  return reply.status === 200;
}

describe.each([
  ['SQLite', false],
  ['PostgreSQL', true],
])('atomic batches on %s', (_store, postgres) => {
  let server: TestServer;
  let endpointId: string;
  beforeAll(async () => {
    // The worker is off: the deliveries the events queue stay visible to `webhooks.deliveries`.
    server = await startServer({ postgres, webhookWorker: false });
    const endpoint = await server.post({ face: 'webhooks', action: 'create', payload: { url: 'http://127.0.0.1:9/hooks', eventTypes: ['auth.*'] } });
    endpointId = endpoint.body.data.id;
  });
  afterAll(() => server.close());

  const deliveries = async () =>
    (await server.post({ face: 'webhooks', action: 'deliveries', payload: { endpointId, limit: 100 } })).body.data.items as { eventType: string }[];

  it('rolls back every stored record and event when the third request fails', async () => {
    const [a, b] = [email('a'), email('b')];
    const before = (await deliveries()).length;
    const reply = await server.post(batch('atomic', [signup(a), signup(b), signup(a)]));
    expect(reply.status).toBe(409);
    expect(reply.body.error).toMatchObject({ type: 'batch_error', code: 'batch_aborted', param: '/payload/requests/2' });
    expect(reply.body.error.details.results).toEqual([
      { id: '0', outcome: 'succeeded' },
      { id: '1', outcome: 'succeeded' },
      { id: '2', outcome: 'failed', status: 409, error: expect.objectContaining({ code: 'email_taken', param: '/payload/email' }) },
    ]);
    expect(await exists(server, a)).toBe(false);
    expect(await exists(server, b)).toBe(false);
    expect(await deliveries()).toHaveLength(before);
    const events = await server.db.selectFrom('events').select('id').where('request_id', '=', reply.body.meta.requestId).execute();
    expect(events).toEqual([]);
  });

  it.runIf(postgres)('answers at the deadline even while a write waits on a lock, and rolls that write back', async () => {
    // Another session holds the row of one address of the import, so the import's write waits for it.
    const [free, held, after] = [email('free'), email('held'), email('after')];
    const users = [free, held].map((address) => ({ email: address, password: 'correct horse' }));
    await server.db.connection().execute(async (session) => {
      await sql`begin`.execute(session);
      await session.insertInto('auth_users').values({ id: `usr_${n}`, mode: 'test', entity_id: 'acme', email: held, name: null, password_hash: 'x', created_at: new Date().toISOString(), disabled_at: null }).execute();
      const reply = await server.post(batch('bestEffort', [{ face: 'auth', action: 'import', payload: { users } }, signup(after)], { timeout: 1500 }));
      expect(reply.body.data.results.map((r: { status: number }) => r.status)).toEqual([504, 504]);
      await sql`rollback`.execute(session);
    });
    // Once the lock is gone the import's write goes through inside its transaction, which is then rolled back.
    await expect.poll(async () => (await server.post(signup(free))).status).toBe(200);
    expect(await exists(server, after)).toBe(false);
  });

  it('commits every request, with its events, when all succeed', async () => {
    const c = email('c');
    const before = (await deliveries()).length;
    const reply = await server.post(batch('atomic', [signup(c, 'create'), login(c)]));
    expect(reply.status).toBe(200);
    expect(reply.body.data.mode).toBe('atomic');
    expect(reply.body.data.results.map((r: { id: string; status: number }) => [r.id, r.status])).toEqual([['create', 200], ['1', 200]]);
    expect(reply.body.data.results[1].data.token).toMatch(/^sess_/);
    const all = await deliveries();
    expect(all.slice(0, all.length - before).map((d) => d.eventType).sort()).toEqual(['auth.login.succeeded', 'auth.signup.succeeded']);
    expect(await exists(server, c)).toBe(true);
  });
});

describe('batches', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ webhookWorker: false });
  });
  afterAll(() => server.close());

  it('runs every request of a best-effort batch, in order, each with its own status', async () => {
    const d = email('d');
    const reply = await server.post(
      batch('bestEffort', [
        signup(d),
        { id: 'missing', face: 'auth', action: 'nope', payload: {} },
        { face: 'auth', action: 'signup', payload: { email: 'not an address', password: 'x' } },
        { face: 'ai', action: 'generate', payload: { model: 'm', prompt: 'hi' } },
        signup(d),
      ]),
    );
    expect(reply.status).toBe(200);
    const results = reply.body.data.results as { id: string; status: number; data?: any; error?: any }[];
    expect(results.map((r) => [r.id, r.status])).toEqual([['0', 200], ['missing', 404], ['2', 400], ['3', 200], ['4', 409]]);
    expect(results[0]!.data.user.email).toBe(d);
    expect(results[1]!.error.code).toBe('action_not_found');
    expect(results[2]!.error.code).toBe('payload_invalid');
    expect(results[2]!.error.details.errors.map((e: { param: string }) => e.param).sort()).toEqual(['/payload/email', '/payload/password']);
    expect(results[3]!.data.text).toEqual(expect.any(String));
    expect(results[4]!.error.code).toBe('email_taken');
    expect(await exists(server, d)).toBe(true);
  });

  it('refuses an atomic batch holding an action with effects outside the store, before anything runs', async () => {
    const e = email('e');
    const reply = await server.post(batch('atomic', [signup(e), { face: 'ai', action: 'generate', payload: { model: 'm', prompt: 'hi' } }]));
    expect(reply.status).toBe(400);
    expect(reply.body.error).toMatchObject({ code: 'atomic_not_supported', param: '/payload/requests/1', details: { action: 'ai.generate' } });
    expect(await exists(server, e)).toBe(false);
  });

  it('checks every request of an atomic batch before running any', async () => {
    const f = email('f');
    const limited = (await server.key({ scopes: ['batch:run', 'auth:session'] })).secret;
    const scoped = await server.post(batch('atomic', [logout, signup(f)]), { headers: { authorization: `Bearer ${limited}` } });
    expect(scoped.status).toBe(403);
    expect(scoped.body.error).toMatchObject({ code: 'batch_aborted', param: '/payload/requests/1' });
    expect(scoped.body.error.details.results).toEqual([
      { id: '0', outcome: 'notExecuted' },
      { id: '1', outcome: 'failed', status: 403, error: expect.objectContaining({ code: 'insufficient_scope' }) },
    ]);
    const invalid = await server.post(batch('atomic', [signup(f), { face: 'auth', action: 'signup', payload: { email: f } }]));
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.details.results[1].error).toMatchObject({ code: 'payload_invalid', param: '/payload/password' });
    expect(await exists(server, f)).toBe(false);
  });

  it('refuses batches that are too large, nested, streamed or hold one id twice', async () => {
    const tooLarge = await server.post(batch('bestEffort', Array.from({ length: 101 }, () => logout)));
    expect(tooLarge.status).toBe(400);
    expect(tooLarge.body.error).toMatchObject({ code: 'batch_too_large', param: '/payload/requests', details: { max: 100, given: 101 } });
    const nested = await server.post(batch('bestEffort', [{ face: 'batch', action: 'run', payload: { mode: 'atomic', requests: [logout] } }]));
    expect(nested.body.error).toMatchObject({ code: 'payload_invalid', param: '/payload/requests/0/face' });
    const twice = await server.post(batch('bestEffort', [{ id: 'x', ...logout }, { id: 'x', ...logout }]));
    expect(twice.body.error).toMatchObject({ code: 'payload_invalid', param: '/payload/requests/1/id' });
    const streamed = await server.post(batch('bestEffort', [logout], { stream: true }));
    expect(streamed.body.error.code).toBe('stream_not_supported');
  });

  it('counts every request as its own call against the rate limits, not the batch itself', async () => {
    // 60 a minute per key; an entity of its own keeps the entity's policy (120, shared by free keys) out of the way.
    const free = { authorization: `Bearer ${(await server.key({ tier: 'free' })).secret}`, 'x-entity-id': 'rate-best-effort' };
    const reply = await server.post(batch('bestEffort', Array.from({ length: 62 }, () => logout)), { headers: free });
    const statuses = (reply.body.data.results as { status: number }[]).map((r) => r.status);
    expect(statuses.slice(0, 60).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(60)).toEqual([429, 429]);
    expect(reply.body.data.results[60].error.details.violatedPolicies).toEqual(['token']);
    expect(reply.headers.get('ratelimit')).toMatch(/r=0/);
  });

  it('takes the rate limits of an atomic batch all at once or not at all', async () => {
    const free = { authorization: `Bearer ${(await server.key({ tier: 'free' })).secret}`, 'x-entity-id': 'rate-atomic' };
    const refused = await server.post(batch('atomic', Array.from({ length: 61 }, () => logout)), { headers: free });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: 'batch_aborted', details: { violatedPolicies: ['token'] } });
    expect(refused.body.error.details.results.every((r: { outcome: string }) => r.outcome === 'notExecuted')).toBe(true);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // The refusal consumed nothing: 60 still fit.
    const fits = await server.post(batch('atomic', Array.from({ length: 60 }, () => logout)), { headers: free });
    expect(fits.status).toBe(200);
  });

  it('covers the whole batch with one idempotency key, and stores no refusal', async () => {
    const g = email('g');
    const key = `batch-${Date.now()}`;
    const first = await server.post(batch('bestEffort', [signup(g)]), { headers: { 'x-idempotency-key': key } });
    const second = await server.post(batch('bestEffort', [signup(g)]), { headers: { 'x-idempotency-key': key } });
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
    expect(second.body.data.results[0].status).toBe(200);
    const other = `batch-refused-${Date.now()}`;
    const refused = await server.post(batch('atomic', [{ face: 'auth', action: 'signup', payload: {} }]), { headers: { 'x-idempotency-key': other } });
    expect(refused.status).toBe(400);
    const fixed = await server.post(batch('atomic', [signup(email('h'))]), { headers: { 'x-idempotency-key': other } });
    expect(fixed.status).toBe(200);
  });

  it('gives the whole batch one deadline: the request running at it is stopped, those after it do not run', async () => {
    const users = Array.from({ length: 12 }, () => ({ email: email('slow'), password: 'correct horse' }));
    const after = email('after');
    const reply = await server.post(batch('bestEffort', [{ face: 'auth', action: 'import', payload: { users } }, signup(after)], { timeout: 150 }));
    expect(reply.status).toBe(200);
    expect(reply.body.data.results.map((r: { status: number; error: { code: string } }) => [r.status, r.error.code])).toEqual([
      [504, 'timeout'],
      [504, 'timeout'],
    ]);
    expect(await exists(server, users[0]!.email)).toBe(false);
    expect(await exists(server, after)).toBe(false);
  });

  it('counts each request in the call metrics', async () => {
    const count = async () => {
      const text = await (await fetch(`${server.url}/metrics`)).text();
      return Number(/dispatch_calls_total\{face="auth",action="logout",status="200"\} (\d+)/.exec(text)?.[1] ?? 0);
    };
    const before = await count();
    await server.post(batch('bestEffort', [logout, logout, logout]));
    expect(await count()).toBe(before + 3);
  });
});
