/**
 * Two real server processes sharing PostgreSQL and Redis behave as one server: a token's rate limit holds
 * across both, one idempotency key sent to both at once executes once, a key revoked through one is
 * refused by the other within KEY_CACHE_TTL_MS, and an address's failed logins through both count together.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { printedKey, serve, sharedStore, type ServeProcess } from '../helpers/process.js';

const KEY_CACHE_TTL_MS = 500;
let drop: (() => Promise<void>) | undefined;
let a: ServeProcess;
let b: ServeProcess;
let admin: string;

async function post(server: ServeProcess, key: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.url}/do`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'x-entity-id': 'acme', 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

const generate = { face: 'ai', action: 'generate', payload: { model: 'm', prompt: 'hello' } };

async function newKey(payload: Record<string, unknown>): Promise<{ id: string; key: string }> {
  const created = await post(a, admin, { face: 'keys', action: 'create', payload: { scopes: ['*'], entities: ['acme'], ...payload } });
  expect(created.status).toBe(200);
  return created.body.data as { id: string; key: string };
}

beforeAll(async () => {
  const shared = await sharedStore();
  drop = shared.drop;
  const env = { ...shared.env, KEY_CACHE_TTL_MS: String(KEY_CACHE_TTL_MS) };
  // The first process migrates the empty database and prints the first key; the second finds both done.
  a = await serve(env);
  admin = printedKey(a.output());
  b = await serve(env);
}, 60_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await drop?.();
});

describe('two processes, one server', () => {
  it("holds a token's limit across both processes", async () => {
    const { key } = await newKey({ tier: 'free' }); // 60 calls a minute per token
    const started = Date.now();
    const replies = await Promise.all(Array.from({ length: 90 }, (_, i) => post(i % 2 ? a : b, key, generate)));
    // The bucket gives a call back each second: a burst that took longer than a second on a loaded machine
    // may pass one more call for each. Two buckets, one per process, would have passed all 90.
    const refilled = Math.floor((Date.now() - started) / 1000);
    const ok = replies.filter((r) => r.status === 200);
    const limited = replies.filter((r) => r.status === 429);
    expect(ok.length).toBeGreaterThanOrEqual(60);
    expect(ok.length).toBeLessThanOrEqual(60 + refilled);
    expect(limited).toHaveLength(90 - ok.length);
    expect(ok.filter((r) => r.headers.get('ratelimit-policy')?.includes('"token";q=60;w=60'))).toHaveLength(ok.length);
    const refused = limited[0]!;
    expect(refused.body.error).toMatchObject({ code: 'rate_limit_exceeded', details: { violatedPolicies: ['token'] } });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  }, 30_000);

  it('executes one idempotency key sent to both at the same moment once', async () => {
    const signup = { face: 'auth', action: 'signup', payload: { email: 'once@example.com', password: 'only once please' } };
    const headers = { 'x-idempotency-key': `signup-${randomBytes(4).toString('hex')}` };
    const [first, second] = await Promise.all([post(a, admin, signup, headers), post(b, admin, signup, headers)]);
    const statuses = [first.status, second.status].sort();
    const replayed = [first, second].filter((r) => r.headers.get('idempotent-replayed') === 'true');
    // One executed; the other either saw it running (409) or got its stored reply.
    expect(statuses[0]).toBe(200);
    expect(statuses[1] === 409 || (statuses[1] === 200 && replayed.length === 1)).toBe(true);
    const again = await post(b, admin, signup, headers);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const direct = await post(a, admin, { ...signup });
    expect(direct.body.error.code).toBe('email_taken');
  }, 30_000);

  it("refuses an address's logins through either process once 10 failed through both", async () => {
    const email = `throttled-${randomBytes(4).toString('hex')}@example.com`;
    const login = (server: ServeProcess, password: string) => post(server, admin, { face: 'auth', action: 'login', payload: { email, password } });
    expect((await post(a, admin, { face: 'auth', action: 'signup', payload: { email, password: 'the right password' } })).status).toBe(200);
    for (let i = 0; i < 10; i++) expect((await login(i % 2 ? a : b, `wrong password ${i}`)).body.error?.code).toBe('invalid_credentials');
    for (const server of [a, b]) {
      const refused = await login(server, 'the right password');
      expect([refused.status, refused.body.error?.code]).toEqual([429, 'rate_limit_exceeded']);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
  }, 30_000);

  it('refuses a key revoked through the other process within KEY_CACHE_TTL_MS', async () => {
    const { id, key } = await newKey({});
    expect((await post(b, key, generate)).status).toBe(200); // now cached in b
    const revokedAt = Date.now();
    expect((await post(a, admin, { face: 'keys', action: 'revoke', payload: { id } })).status).toBe(200);
    let status = 200;
    while (status === 200 && Date.now() - revokedAt < 5000) {
      status = (await post(b, key, generate)).status;
      if (status === 200) await new Promise((r) => setTimeout(r, 50));
    }
    expect(status).toBe(401);
    expect(Date.now() - revokedAt).toBeLessThan(KEY_CACHE_TTL_MS + 1000);
  }, 30_000);
});
