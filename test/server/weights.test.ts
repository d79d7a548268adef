/**
 * Work priced in rate limits: an action's weight (face file `weight`) is what one call takes from every
 * policy. `auth.import` weighs 1 per call plus 1 per user, so a free-tier key (60 a minute) spends its minute
 * on one import of 59 users; a heavier import is charged the whole window, never refused forever.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PolicyCheck } from '../../src/server/rate-limit/limiter.js';
import { MemoryRateLimiter } from '../../src/server/rate-limit/memory.js';
import { startServer, type TestServer } from '../helpers/server.js';

/** The in-process limiter, noting the largest check it was asked: a heavy batch must stay a check of bounded size. */
class Watched extends MemoryRateLimiter {
  largest = 0;
  override check(policies: PolicyCheck[], cost?: number) {
    this.largest = Math.max(this.largest, policies.length);
    return super.check(policies, cost);
  }
}
const limiter = new Watched();

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ limiter });
});
afterAll(() => server.close());

const users = (n: number, tag: string) => Array.from({ length: n }, (_, i) => ({ email: `${tag}${i}@example.com`, password: 'correct horse' }));
const remaining = (header: string | null) => Number(/r=(\d+)/.exec(header ?? '')?.[1]);

describe('weights', () => {
  it('charge an import its users, and a call heavier than a window the whole window', async () => {
    const key = (await server.key({ tier: 'free', scopes: ['*'], entities: ['w1'] })).secret;
    const headers = { authorization: `Bearer ${key}`, 'x-entity-id': 'w1' };
    const imported = await server.post({ face: 'auth', action: 'import', payload: { users: users(9, 'a') } }, { headers });
    expect(imported.status).toBe(200);
    // 60 - (1 + 9) = 50 left on the token policy.
    expect(imported.headers.get('ratelimit')).toMatch(/^"token";/);
    expect(remaining(imported.headers.get('ratelimit'))).toBe(50);
    // Weighing 59: refused unless 9 of the 60 a minute came back since, however slowly the first import ran.
    const tooMuch = await server.post({ face: 'auth', action: 'import', payload: { users: users(58, 'b') } }, { headers });
    expect(tooMuch.status).toBe(429);
    expect(tooMuch.body.error.code).toBe('rate_limit_exceeded');

    const other = (await server.key({ tier: 'free', scopes: ['*'], entities: ['w2'] })).secret;
    const heavy = await server.post({ face: 'auth', action: 'import', payload: { users: users(70, 'c') } }, { headers: { authorization: `Bearer ${other}`, 'x-entity-id': 'w2' } });
    expect(heavy.status).toBe(200);
    // Weighing 71, it was charged the whole window of 60: nothing was left when it was let through.
    expect(remaining(heavy.headers.get('ratelimit'))).toBe(0);
  });

  it('charge a plain call 1', async () => {
    const key = (await server.key({ tier: 'free', scopes: ['*'], entities: ['w3'] })).secret;
    const reply = await server.post({ face: 'ai', action: 'generate', payload: { model: 'm', prompt: 'hi' } }, { headers: { authorization: `Bearer ${key}`, 'x-entity-id': 'w3' } });
    expect(remaining(reply.headers.get('ratelimit'))).toBe(59);
  });

  it('charge an atomic batch all its requests together: one that needs more than a window is refused, and costs nothing', async () => {
    const key = (await server.key({ tier: 'free', scopes: ['*'], entities: ['w4'] })).secret;
    const headers = { authorization: `Bearer ${key}`, 'x-entity-id': 'w4' };
    const importing = (n: number, tag: string) => ({ face: 'auth', action: 'import', payload: { users: users(n, tag) } });
    // 41 + 41 = 82 against a window of 60; then 501 + 501: refused before anything runs, and no bucket listed
    // more than its limit and one in the check (token 60 + 1, entity 120 + 1), not 2 × 1002.
    for (const n of [40, 500]) {
      const heavy = await server.post({ face: 'batch', action: 'run', payload: { mode: 'atomic', requests: [importing(n, `d${n}`), importing(n, `e${n}`)] } }, { headers });
      expect(heavy.status).toBe(429);
      expect(heavy.body.error).toMatchObject({ code: 'batch_aborted', details: { violatedPolicies: ['token'] } });
    }
    expect(limiter.largest).toBeLessThanOrEqual(61 + 121);
    // 30 + 29 = 59 fits, and the refusal above took nothing.
    const fits = await server.post({ face: 'batch', action: 'run', payload: { mode: 'atomic', requests: [importing(29, 'f'), importing(28, 'g')] } }, { headers });
    expect(fits.status).toBe(200);
    expect(remaining(fits.headers.get('ratelimit'))).toBe(1);
  }, 30_000);
});
