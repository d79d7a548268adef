/**
 * Traffic control over real HTTP in embedded mode: idempotent replays, 409 while in flight, 422 on reuse,
 * what is stored and what is not; rate-limit headers and 429; and a server whose Redis is down.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TextModel } from '../../src/providers/text-model.js';
import { MemoryRateLimiter } from '../../src/server/rate-limit/memory.js';
import { createRedis, RedisRateLimiter } from '../../src/server/rate-limit/redis.js';
import { generateCall, startServer, type TestServer } from '../helpers/server.js';

let release: () => void = () => {};
/** Stands in for a slow live provider, so a call can be caught while it runs. */
const slowModel: TextModel = {
  generate: (request) =>
    new Promise((resolve) => {
      release = () => resolve({ text: 'slow answer', model: request.model, tokens: { input: 1, output: 2 } });
    }),
};

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ providers: { live: slowModel } });
});
afterAll(() => server.close());

const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });
let n = 0;
const freshKey = () => `key-${Date.now()}-${++n}`;

describe('idempotency', () => {
  it('replays the stored response with Idempotent-Replayed and no second effect', async () => {
    const key = freshKey();
    const signup = { face: 'auth', action: 'signup', payload: { email: `idem${n}@example.com`, password: 'twice is once' } };
    const first = await server.post(signup, { headers: { 'x-idempotency-key': key } });
    const second = await server.post(signup, { headers: { 'x-idempotency-key': key } });
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('request-id')).toBe(first.body.meta.requestId);
    // The user was created once: a signup without the key finds the address taken.
    expect((await server.post(signup)).body.error.code).toBe('email_taken');
  });

  it('takes the key from options.idempotencyKey as from the header', async () => {
    const key = freshKey();
    const first = await server.post({ ...generateCall(), options: { idempotencyKey: key } });
    const second = await server.post(generateCall(), { headers: { 'x-idempotency-key': key } });
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body.data).toEqual(first.body.data);
  });

  it('answers 422 when the key is reused for another request, and keeps keys apart per entity', async () => {
    const key = freshKey();
    await server.post(generateCall({ prompt: 'one' }), { headers: { 'x-idempotency-key': key } });
    const reused = await server.post(generateCall({ prompt: 'two' }), { headers: { 'x-idempotency-key': key } });
    expect(reused.status).toBe(422);
    expect(reused.body.error).toMatchObject({ type: 'idempotency_error', code: 'idempotency_key_reused' });
    const otherEntity = await server.post(generateCall({ prompt: 'two' }), { headers: { 'x-idempotency-key': key, 'x-entity-id': 'globex' } });
    expect(otherEntity.status).toBe(200);
    expect(otherEntity.headers.get('idempotent-replayed')).toBeNull();
  });

  it('answers 409 while the first request with the key is still running', async () => {
    const key = freshKey();
    const live = bearer((await server.key({ mode: 'live' })).secret);
    const first = server.post(generateCall(), { headers: { ...live, 'x-idempotency-key': key } });
    await new Promise((r) => setTimeout(r, 100));
    const concurrent = await server.post(generateCall(), { headers: { ...live, 'x-idempotency-key': key } });
    expect(concurrent.status).toBe(409);
    expect(concurrent.body.error).toMatchObject({ type: 'idempotency_error', code: 'idempotency_key_in_use' });
    release();
    expect((await first).body.data.text).toBe('slow answer');
    const after = await server.post(generateCall(), { headers: { ...live, 'x-idempotency-key': key } });
    expect(after.headers.get('idempotent-replayed')).toBe('true');
  });

  it('stores errors once execution started, but not refusals before it', async () => {
    const key = freshKey();
    const login = { face: 'auth', action: 'login', payload: { email: 'nobody@example.com', password: 'wrong one' } };
    const failed = await server.post(login, { headers: { 'x-idempotency-key': key } });
    const replay = await server.post(login, { headers: { 'x-idempotency-key': key } });
    expect(failed.status).toBe(401);
    expect(replay.status).toBe(401);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');

    const refusedKey = freshKey();
    const invalid = await server.post({ face: 'auth', action: 'signup', payload: { email: 'x' } }, { headers: { 'x-idempotency-key': refusedKey } });
    expect(invalid.status).toBe(400);
    const valid = await server.post(
      { face: 'auth', action: 'signup', payload: { email: `later${n}@example.com`, password: 'valid password' } },
      { headers: { 'x-idempotency-key': refusedKey } },
    );
    expect(valid.status).toBe(200);
    expect(valid.headers.get('idempotent-replayed')).toBeNull();
  });
});

describe('rate limits', () => {
  it('reports the policies on every response and refuses with 429 and Retry-After past the limit', async () => {
    // The limiter's clock stands still, so the bucket refills nothing between the 61 calls however long they take.
    const now = Date.now();
    const limited = await startServer({ limiter: new MemoryRateLimiter({ now: () => now }) });
    const key = bearer((await limited.key({ tier: 'free', entities: ['limited'] })).secret);
    const headers = { ...key, 'x-entity-id': 'limited' };
    const replies = [];
    try {
      for (let i = 0; i < 61; i++) replies.push(await limited.post(generateCall(), { headers }));
    } finally {
      await limited.close();
    }
    expect(replies.slice(0, 60).every((r) => r.status === 200)).toBe(true);
    expect(replies[0]!.headers.get('ratelimit-policy')).toBe('"token";q=60;w=60, "entity";q=120;w=60');
    expect(replies[0]!.headers.get('ratelimit')).toBe('"token";r=59;t=1');
    const refused = replies[60]!;
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded', details: { violatedPolicies: ['token'] } });
    expect(Number(refused.headers.get('retry-after'))).toBe(1);
    expect(refused.headers.get('ratelimit')).toBe('"token";r=0;t=60');
  });
});

describe('rate limits when Redis is unreachable', () => {
  it("lets calls through by default and counts them in /metrics; 'refuse' answers 503", async () => {
    const open = await startServer({ limiter: new RedisRateLimiter(createRedis('redis://127.0.0.1:6390'), { onUnavailable: 'allow' }) });
    const closed = await startServer({ limiter: new RedisRateLimiter(createRedis('redis://127.0.0.1:6390'), { onUnavailable: 'refuse' }) });
    try {
      expect((await open.post(generateCall())).status).toBe(200);
      expect((await open.post(generateCall())).status).toBe(200);
      const metrics = await (await fetch(`${open.url}/metrics`)).text();
      expect(metrics).toMatch(/^dispatch_rate_limit_unavailable_total 2$/m);
      expect(metrics).toMatch(/^dispatch_calls_total\{face="ai",action="generate",status="200"\} 2$/m);
      const refused = await closed.post(generateCall());
      expect(refused.status).toBe(503);
      expect(refused.body.error.code).toBe('provider_unavailable');
    } finally {
      await open.close();
      await closed.close();
    }
  });
});
