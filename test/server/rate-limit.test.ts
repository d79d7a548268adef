/**
 * Rate limiters (docs/contract.md § Rate limits): one table of behaviours run against the in-process limiter (fake clock) and the
 * Redis limiter (real Redis, real time), then what only Redis promises: one limit across several processes,
 * and a chosen behaviour when Redis is down.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type AddressInfo } from 'node:net';
import type { Redis } from 'ioredis';
import { policyHeader, rateLimitHeader, type PolicyCheck, type PolicyState, type RateLimiter } from '../../src/server/rate-limit/limiter.js';
import { MemoryRateLimiter } from '../../src/server/rate-limit/memory.js';
import { RateLimiterUnavailableError } from '../../src/server/rate-limit/limiter.js';
import { createRedis, RedisRateLimiter } from '../../src/server/rate-limit/redis.js';

const PREFIX = `test-rl-${randomBytes(4).toString('hex')}:`;
const REDIS_URL = 'redis://127.0.0.1:6379';

/** A limiter plus a way to let time pass: the fake clock jumps, real time is slept. */
interface Harness {
  limiter: RateLimiter;
  wait(ms: number): Promise<void>;
}

let admin: Redis;
const open: RateLimiter[] = [];

beforeAll(() => {
  admin = createRedis(REDIS_URL);
});

afterEach(async () => {
  await Promise.all(open.splice(0).map((l) => l.close()));
});

afterAll(async () => {
  const keys = await admin.keys(`${PREFIX}*`);
  if (keys.length > 0) await admin.del(...keys);
  await admin.quit();
});

function memoryHarness(): Harness {
  // A realistic epoch in ms, so float rounding is the same as with Date.now().
  let now = 1_767_225_600_123;
  const limiter = new MemoryRateLimiter({ now: () => now });
  open.push(limiter);
  return {
    limiter,
    wait: async (ms) => {
      now += ms;
    },
  };
}

function redisHarness(): Harness {
  const limiter = new RedisRateLimiter(createRedis(REDIS_URL), { prefix: PREFIX });
  open.push(limiter);
  return { limiter, wait: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) };
}

/**
 * A limiter for a test of a long turn, on a connection that is ready before the test begins and whose
 * commands may take longer than the limiter's own bound: on a machine busy with other tests the first
 * connection can take longer than the second the limiter waits for it, and a script call of 500 checks longer
 * than 250 ms, which the limiter rightly treats as Redis being down, and that is not what such a test is about.
 */
async function patientRedisLimiter(): Promise<RedisRateLimiter> {
  const redis = createRedis(REDIS_URL, { commandTimeoutMs: 10_000 });
  if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
  const limiter = new RedisRateLimiter(redis, { prefix: PREFIX });
  open.push(limiter);
  return limiter;
}

let counter = 0;
/** A policy on a bucket no other test touches. */
function policy(name: string, limit: number, windowSeconds: number): PolicyCheck {
  counter += 1;
  return { name, key: `${name}:${counter}:${randomBytes(3).toString('hex')}`, limit, windowSeconds };
}

async function allowedCount(limiter: RateLimiter, policies: PolicyCheck[], attempts: number): Promise<number> {
  let allowed = 0;
  for (let i = 0; i < attempts; i++) if ((await limiter.check(policies)).allowed) allowed += 1;
  return allowed;
}

describe.each([
  ['memory', memoryHarness],
  ['redis', redisHarness],
])('%s limiter', (_name, harness) => {
  // Long windows where only counting matters, so that real time passing during the test replenishes nothing.
  it.each([1, 3, 7, 10])('allows exactly %i requests in a burst, then refuses', async (limit) => {
    const { limiter } = harness();
    const p = policy('token', limit, 60);
    expect(await allowedCount(limiter, [p], limit)).toBe(limit);
    const refused = await limiter.check([p]);
    expect(refused.allowed).toBe(false);
    expect(refused.violated).toEqual(['token']);
    expect(refused.policies[0]).toMatchObject({ name: 'token', remaining: 0, limit, windowSeconds: 60 });
  });

  it('counts remaining down and reports the time to full replenishment', async () => {
    const { limiter } = harness();
    const p = policy('token', 4, 60);
    const first = await limiter.check([p]);
    expect(first).toMatchObject({ allowed: true, violated: [], retryAfterSeconds: 0 });
    expect(first.policies[0]).toMatchObject({ remaining: 3, resetSeconds: 15 });
    const second = await limiter.check([p]);
    expect(second.policies[0]).toMatchObject({ remaining: 2, resetSeconds: 30 });
  });

  it('a refused request consumes nothing from the other policies', async () => {
    const { limiter } = harness();
    const a = policy('a', 2, 60);
    const b = policy('b', 5, 60);
    expect(await allowedCount(limiter, [a, b], 2)).toBe(2);
    for (let i = 0; i < 3; i++) {
      const refused = await limiter.check([a, b]);
      expect(refused.allowed).toBe(false);
      expect(refused.violated).toEqual(['a']);
      expect(refused.policies.map((s) => s.remaining)).toEqual([0, 3]);
    }
    // B on its own still has exactly the three slots the refused calls did not take.
    expect(await allowedCount(limiter, [b], 5)).toBe(3);
  });

  it('names every exceeded policy', async () => {
    const { limiter } = harness();
    const a = policy('a', 1, 60);
    const b = policy('b', 1, 60);
    const c = policy('c', 5, 60);
    expect((await limiter.check([a, b, c])).allowed).toBe(true);
    const refused = await limiter.check([a, b, c]);
    expect(refused.violated).toEqual(['a', 'b']);
    expect(refused.policies[2]!.remaining).toBe(4);
  });

  it('Retry-After is never early: waiting exactly that long lets the request through', async () => {
    const { limiter, wait } = harness();
    const p = policy('token', 2, 1);
    expect(await allowedCount(limiter, [p], 2)).toBe(2);
    const refused = await limiter.check([p]);
    expect(refused.allowed).toBe(false);
    expect(Number.isInteger(refused.retryAfterSeconds)).toBe(true);
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    await wait(refused.retryAfterSeconds * 1000);
    expect((await limiter.check([p])).allowed).toBe(true);
  });

  it('charges a bucket listed twice twice, all or nothing, and reports where it then stands', async () => {
    const { limiter } = harness();
    const p = policy('token', 5, 60);
    const other = policy('other', 9, 60);
    const twice = await limiter.check([p, other, p]);
    expect(twice.allowed).toBe(true);
    // Both listings show the bucket after both charges.
    expect(twice.policies.map((s) => s.remaining)).toEqual([3, 8, 3]);
    expect((await limiter.check([p, p])).policies.map((s) => s.remaining)).toEqual([1, 1]);
    // One slot left: the first listing alone would pass, the second cannot, so neither is charged.
    const refused = await limiter.check([p, other, p]);
    expect(refused).toMatchObject({ allowed: false, violated: ['token'] });
    expect(refused.policies.map((s) => s.remaining)).toEqual([1, 8, 1]);
    expect((await limiter.check([p])).policies[0]!.remaining).toBe(0);
  });

  it('charges buckets listed many times, as an atomic batch lists them, each listing once', async () => {
    const { limiter } = harness();
    const p = policy('token', 50, 60);
    const other = policy('other', 100, 60);
    // 20 listings of each, interleaved: past the few a check looks through one by one.
    const listings = Array.from({ length: 20 }, () => [p, other]).flat();
    const first = await limiter.check(listings);
    expect(first.allowed).toBe(true);
    expect(new Set(first.policies.map((s) => `${s.name}=${s.remaining}`))).toEqual(new Set(['token=30', 'other=80']));
    expect((await limiter.check(listings)).policies.slice(0, 2).map((s) => s.remaining)).toEqual([10, 60]);
    // Ten slots left for twenty listings: refused, naming each listing past the tenth, and nothing charged.
    const refused = await limiter.check(listings);
    expect(refused.allowed).toBe(false);
    expect(refused.violated).toEqual(Array.from({ length: 10 }, () => 'token'));
    expect(refused.policies.slice(0, 2).map((s) => s.remaining)).toEqual([10, 60]);
  });

  it('a cost above 1 takes that many slots, and a cost above the limit never passes', async () => {
    const { limiter } = harness();
    const p = policy('token', 5, 60);
    expect((await limiter.check([p], 3)).policies[0]!.remaining).toBe(2);
    expect((await limiter.check([p], 3)).allowed).toBe(false);
    expect((await limiter.check([p], 2)).allowed).toBe(true);
    const tooBig = await limiter.check([policy('big', 5, 60)], 6);
    expect(tooBig).toMatchObject({ allowed: false, violated: ['big'] });
  });

  it('fills the headers from a decision', async () => {
    const { limiter } = harness();
    const token = policy('token', 100, 1);
    const face = policy('face-ai', 10, 1);
    expect(await allowedCount(limiter, [token, face], 10)).toBe(10);
    const refused = await limiter.check([token, face]);
    expect(refused.violated).toEqual(['face-ai']);
    expect(policyHeader(refused.policies)).toBe('"token";q=100;w=1, "face-ai";q=10;w=1');
    expect(rateLimitHeader(refused.policies)).toBe('"face-ai";r=0;t=1');
  });

  it('rejects a policy GCRA cannot express', async () => {
    const { limiter } = harness();
    await expect(limiter.check([policy('zero', 0, 1)])).rejects.toThrow(RangeError);
    await expect(limiter.check([policy('token', 1, 1)], -1)).rejects.toThrow(RangeError);
    await expect(limiter.check([policy('eternal', 1, 1e12)])).rejects.toThrow(RangeError);
  });
});

describe('memory limiter with a fake clock', () => {
  // Emission intervals such as 1000/6 ms are not exact in floating point; the whole burst must still pass.
  it.each([
    [6, 1],
    [7, 3],
    [100, 7],
    [1000, 60],
  ])('lets a full burst of %i per %i s through despite rounding', async (limit, windowSeconds) => {
    const { limiter } = memoryHarness();
    const p = policy('token', limit, windowSeconds);
    expect(await allowedCount(limiter, [p], limit + 1)).toBe(limit);
  });

  it.each([
    [1, 1],
    [2, 3],
    [3, 1],
    [6, 1],
    [5, 7],
  ])('Retry-After for %i per %i s is tight: refused 1 s earlier, allowed at it', async (limit, windowSeconds) => {
    const { limiter, wait } = memoryHarness();
    const p = policy('token', limit, windowSeconds);
    expect(await allowedCount(limiter, [p], limit)).toBe(limit);
    const { retryAfterSeconds } = await limiter.check([p]);
    expect(retryAfterSeconds).toBe(Math.ceil(windowSeconds / limit));
    await wait((retryAfterSeconds - 1) * 1000);
    expect((await limiter.check([p])).allowed).toBe(false);
    await wait(1000);
    expect((await limiter.check([p])).allowed).toBe(true);
  });

  it('is exact to the millisecond when the wait is a whole second', async () => {
    const { limiter, wait } = memoryHarness();
    const p = policy('token', 1, 1);
    expect((await limiter.check([p])).allowed).toBe(true);
    expect((await limiter.check([p])).retryAfterSeconds).toBe(1);
    await wait(999);
    expect((await limiter.check([p])).allowed).toBe(false);
    await wait(1);
    expect((await limiter.check([p])).allowed).toBe(true);
  });

  it('replenishes one slot per emission interval', async () => {
    const { limiter, wait } = memoryHarness();
    const p = policy('token', 3, 1);
    expect(await allowedCount(limiter, [p], 4)).toBe(3);
    await wait(334); // one interval is 333.3 ms
    expect(await allowedCount(limiter, [p], 2)).toBe(1);
  });

  it('drops buckets once they are fully replenished', async () => {
    let now = 1_000_000;
    const limiter = new MemoryRateLimiter({ now: () => now });
    for (let i = 0; i < 100; i++) await limiter.check([policy('token', 5, 1)]);
    expect(limiter.size).toBe(100);
    now += 60_000;
    await limiter.check([policy('token', 5, 1)]);
    expect(limiter.size).toBe(1);
  });
});

describe('headers', () => {
  const state = (name: string, limit: number, remaining: number, resetSeconds: number): PolicyState => ({ name, limit, windowSeconds: 1, remaining, resetSeconds });

  it('lists every policy in RateLimit-Policy', () => {
    expect(policyHeader([state('token', 100, 99, 1), state('face-ai', 10, 3, 1)])).toBe('"token";q=100;w=1, "face-ai";q=10;w=1');
    expect(policyHeader([{ name: 'entity', limit: 1000, windowSeconds: 60, remaining: 1, resetSeconds: 1 }])).toBe('"entity";q=1000;w=60');
  });

  it('names the policy closest to its limit in RateLimit, by ratio and not by count', () => {
    // 20 of 100 left (0.2) is closer to the limit than 5 of 10 (0.5), though 5 < 20.
    expect(rateLimitHeader([state('face-ai', 10, 5, 1), state('token', 100, 20, 3)])).toBe('"token";r=20;t=3');
    expect(rateLimitHeader([state('token', 100, 90, 1), state('face-ai', 10, 0, 1)])).toBe('"face-ai";r=0;t=1');
    expect(rateLimitHeader([])).toBe('');
  });

  it('escapes quotes and backslashes in names (RFC 8941 strings)', () => {
    expect(policyHeader([state('a"b\\c', 1, 0, 1)])).toBe('"a\\"b\\\\c";q=1;w=1');
  });
});

describe('redis limiter across processes', () => {
  it('two connections sharing one Redis never allow more than the limit together', async () => {
    const one = redisHarness().limiter;
    const two = redisHarness().limiter;
    // Connect both first, so that the burst below really interleaves the two connections.
    await Promise.all([one.check([policy('warm', 1, 60)]), two.check([policy('warm', 1, 60)])]);
    const p = policy('token', 10, 60);
    const decisions = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? one : two).check([p])));
    // Separate buckets per connection would have allowed 20.
    expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
    expect((await one.check([p])).allowed).toBe(false);
    expect((await two.check([p])).allowed).toBe(false);
  });

  it('each connection sees what the other consumed', async () => {
    const one = redisHarness().limiter;
    const two = redisHarness().limiter;
    const p = policy('token', 10, 60);
    expect(await allowedCount(one, [p], 6)).toBe(6);
    expect((await two.check([p])).policies[0]!.remaining).toBe(3);
  });

  it('stores one prefixed key per bucket, expiring when replenished, and writes nothing when refusing', async () => {
    const { limiter } = redisHarness();
    const a = policy('a', 1, 60);
    const b = policy('b', 5, 60);
    expect((await limiter.check([a])).allowed).toBe(true);
    const ttl = await admin.pttl(`${PREFIX}rl:${a.key}`);
    expect(ttl).toBeGreaterThan(55_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    expect((await limiter.check([a, b])).allowed).toBe(false);
    expect(await admin.exists(`${PREFIX}rl:${b.key}`)).toBe(0);
  });
});

describe('redis limiter, one turn of checks', () => {
  it('asks Redis once for the checks of a turn, deciding each in the order made, as one after the other', async () => {
    const { limiter } = redisHarness();
    await limiter.check([policy('warm', 1, 60)]);
    const monitor = await admin.monitor();
    const scripts: string[][] = [];
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (args.some((arg) => arg.startsWith(PREFIX))) scripts.push(args);
    });
    try {
      const shared = policy('token', 3, 60);
      const spent = policy('entity', 1, 60);
      expect((await limiter.check([spent])).allowed).toBe(true);
      const decisions = await Promise.all([
        limiter.check([shared]),
        // Refused on its spent policy: it takes nothing from the shared one.
        limiter.check([shared, spent]),
        limiter.check([shared]),
        limiter.check([shared], 2),
        limiter.check([shared]),
        limiter.check([shared]),
      ]);
      expect(decisions.map((d) => d.allowed)).toEqual([true, false, true, false, true, false]);
      expect(decisions.map((d) => d.policies[0]!.remaining)).toEqual([2, 2, 1, 1, 0, 0]);
      expect(decisions[1]!.violated).toEqual(['entity']);
      expect(decisions[3]!.violated).toEqual(['token']);
      // The monitor also lists the commands a script runs, and may list the check before the turn late.
      const asked = () => scripts.filter(([command, ...args]) => /^eval/i.test(command!) && args.includes(`${PREFIX}rl:${shared.key}`)).length;
      await expect.poll(asked).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(asked()).toBe(1);
    } finally {
      monitor.disconnect();
    }
  });

  it('decides a turn of thousands of checks in order, over as many calls as it takes', async () => {
    const limiter = await patientRedisLimiter();
    // A window so long that nothing replenishes while the calls run one after the other.
    const p = policy('token', 1000, 1e9);
    const decisions = await Promise.all(Array.from({ length: 20_000 }, () => limiter.check([p, policy('entity', 5, 60)])));
    expect(decisions.map((d) => d.allowed)).toEqual(Array.from({ length: 20_000 }, (_, i) => i < 1000));
    expect(decisions[999]!.policies[0]!.remaining).toBe(0);
    expect(limiter.unavailableCount).toBe(0);
  });
});

describe('redis limiter when Redis is unreachable', () => {
  const DOWN = 'redis://127.0.0.1:6390';

  it("'refuse' throws RateLimiterUnavailableError within 2 s", async () => {
    const limiter = new RedisRateLimiter(createRedis(DOWN), { prefix: PREFIX, onUnavailable: 'refuse' });
    open.push(limiter);
    const started = Date.now();
    await expect(limiter.check([policy('token', 10, 1)])).rejects.toBeInstanceOf(RateLimiterUnavailableError);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(limiter.unavailableCount).toBe(0);
  });

  it("'allow' lets calls through unchecked and counts them", async () => {
    const limiter = new RedisRateLimiter(createRedis(DOWN), { prefix: PREFIX, onUnavailable: 'allow' });
    open.push(limiter);
    const started = Date.now();
    const p = policy('token', 1, 60);
    for (let i = 0; i < 3; i++) {
      expect(await limiter.check([p])).toEqual({ allowed: true, policies: [], violated: [], retryAfterSeconds: 0 });
    }
    expect(limiter.unavailableCount).toBe(3);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('costs a call milliseconds, not a command time-out, while Redis accepts connections but never answers', async () => {
    const silent = createServer((socket) => socket.on('data', () => {}));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    const limiter = new RedisRateLimiter(createRedis(`redis://127.0.0.1:${(silent.address() as AddressInfo).port}`), { prefix: PREFIX, onUnavailable: 'allow' });
    open.push(limiter);
    const p = policy('token', 1, 60);
    await limiter.check([p]);
    const times: number[] = [];
    for (let i = 0; i < 50; i++) {
      const started = performance.now();
      expect((await limiter.check([p])).allowed).toBe(true);
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    expect(times[25]!).toBeLessThan(5);
    expect(limiter.unavailableCount).toBe(51);
    silent.close();
  });
});
