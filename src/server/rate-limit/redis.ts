/**
 * GCRA rate limiter (see limiter.ts) kept in Redis, so that every server process sharing one Redis enforces
 * one limit (docs/contract.md § Rate limits). The checks of one turn of the event loop are one Lua script call:
 * it reads the clock with `TIME` (one clock for all processes, whatever their own clocks say) and decides each
 * check in turn on every policy it names, writing all of that check's buckets or none. Redis runs a script
 * without interleaving other commands, so concurrent checks from several processes cannot both take the last
 * slot. One call a turn, where each check was a script call of its own, costs Redis and the process a command
 * per turn instead of one per call. Keys live in one Redis; a Redis Cluster would need the keys of one
 * process's turn in one hash slot.
 *
 * When Redis cannot be reached the limiter either refuses (`RateLimiterUnavailableError`, which the server
 * answers with 503 `provider_unavailable`) or lets the call through unchecked and counts it
 * (`unavailableCount`, exported as a metric): availability against enforcement, chosen per deployment.
 */
import { Redis } from 'ioredis';
import { EPSILON_MS, RateLimiterUnavailableError, toDecision, validateChecks, type PolicyCheck, type PolicyOutcome, type RateDecision, type RateLimiter } from './limiter.js';

export interface RedisRateLimiterOptions {
  /** Prepended to every key (before `rl:`), so that deployments and test runs sharing a Redis stay apart. */
  prefix?: string;
  /** `allow` (default): let calls through unchecked and count them; `refuse`: throw `RateLimiterUnavailableError`. */
  onUnavailable?: 'allow' | 'refuse';
}

/**
 * The checks of one turn of the event loop, in the order they were made, as if each were a script of its own
 * run one after the other (a later check sees what an earlier one consumed), at one clock reading. KEYS:
 * every check's bucket keys, check after check. ARGV: epsilon, then per check its cost, its number of keys,
 * and a limit and window (ms) per key. Returns, per check, allowed (1/0) followed by remaining, resetMs and
 * retryMs per key — the same formulas as memory.ts. Numbers leave the script as whole numbers (Lua numbers
 * become integer replies), and TATs are stored with %.17g so that no precision is lost.
 */
const GCRA_SCRIPT = `
if redis.replicate_commands then redis.replicate_commands() end -- Redis < 5 needs this to write after TIME
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
local eps = tonumber(ARGV[1])
local tats, written, out = {}, {}, {}
local a, k = 2, 1
while a <= #ARGV do
  local cost = tonumber(ARGV[a])
  local n = tonumber(ARGV[a + 1])
  a = a + 2
  local keys, limits, windows, pending, waits = {}, {}, {}, {}, {}
  local allowed = true
  for i = 1, n do
    local key = KEYS[k]
    keys[i], limits[i], windows[i] = key, tonumber(ARGV[a]), tonumber(ARGV[a + 1])
    k, a = k + 1, a + 2
    if tats[key] == nil then tats[key] = tonumber(redis.call('GET', key)) or now end
    local tat = math.max(pending[key] or tats[key], now)
    local newTat = tat + cost * windows[i] / limits[i]
    local wait = newTat - windows[i] - now
    if cost <= limits[i] and wait <= eps then
      pending[key] = newTat
      waits[i] = 0
    else
      allowed = false
      waits[i] = math.max(wait, 1)
    end
  end
  out[#out + 1] = allowed and 1 or 0
  for i = 1, n do
    local tat = math.max((allowed and pending[keys[i]]) or tats[keys[i]], now)
    local remaining = math.min(limits[i], math.max(0, math.floor((now + windows[i] - tat + eps) / (windows[i] / limits[i]))))
    local reset = math.max(0, math.ceil(tat - now - eps))
    local retry = 0
    if waits[i] > 0 then retry = math.max(1, math.ceil(waits[i] - eps)) end
    out[#out + 1] = remaining
    out[#out + 1] = reset
    out[#out + 1] = retry
  end
  if allowed then
    for key, tat in pairs(pending) do
      tats[key] = tat
      written[key] = true
    end
  end
end
for key in pairs(written) do
  redis.call('SET', key, string.format('%.17g', tats[key]), 'PX', math.max(1, math.ceil(tats[key] - now)))
end
return out
`;

/** A check waiting for the turn's script: its bucket keys, its arguments, and where its decision goes. */
interface Waiting {
  policies: readonly PolicyCheck[];
  /** The check that probes Redis after the circuit opened: its call, answered or not, ends the probe. */
  probe: boolean;
  cost: number;
  keys: string[];
  /** Limit and window (ms) per key. */
  args: number[];
  resolve: (decision: RateDecision) => void;
  reject: (error: unknown) => void;
}

const COMMAND = 'dispatchRateLimitGcra';
/** Checks per script call: a few thousand arguments, well within one call and a millisecond or two of Redis. */
const CHECKS_PER_CALL = 500;

/** How long Redis is left alone after a failure before one call probes it again. */
const CIRCUIT_OPEN_MS = 1000;
/** How long the first calls wait for the first connection before going on without Redis. */
const FIRST_CONNECTION_MS = 1000;

type WithScript = Redis & { [COMMAND](numKeys: number, ...args: (string | number)[]): Promise<number[]> };

export class RedisRateLimiter implements RateLimiter {
  private readonly redis: WithScript;
  private readonly prefix: string;
  private readonly onUnavailable: 'allow' | 'refuse';
  private unavailable = 0;
  /**
   * A circuit breaker: after a failure Redis is not asked again for `CIRCUIT_OPEN_MS`, then one call probes
   * it while the others still pass without it. An outage, even one where Redis accepts connections and
   * never answers, then costs calls nothing rather than a command time-out each.
   */
  private openUntil = 0;
  private probing = false;
  /** The checks of this turn, asked together at its end. */
  private waiting: Waiting[] = [];
  /** Settles once the first connection is ready or has failed (at most `FIRST_CONNECTION_MS`). */
  private readonly firstConnection: Promise<void>;
  private connecting = true;

  /** Takes ownership of `redis`: `close` closes it. Prefer a connection made by `createRedis`. */
  constructor(redis: Redis, options: RedisRateLimiterOptions = {}) {
    // defineCommand sends EVALSHA and falls back to EVAL once when Redis has not cached the script.
    redis.defineCommand(COMMAND, { lua: GCRA_SCRIPT });
    this.redis = redis as WithScript;
    this.prefix = `${options.prefix ?? ''}rl:`;
    this.onUnavailable = options.onUnavailable ?? 'allow';
    this.firstConnection = new Promise((resolve) => {
      const settled = () => {
        this.connecting = false;
        resolve();
      };
      if (redis.status === 'ready') return settled();
      redis.once('ready', settled);
      redis.once('error', settled);
      setTimeout(settled, FIRST_CONNECTION_MS).unref();
    });
  }

  /** Whether Redis answered the first connection (waited for up to FIRST_CONNECTION_MS): what a start checks. */
  async reachable(): Promise<boolean> {
    await this.firstConnection;
    return this.redis.status === 'ready';
  }

  /** Calls let through unchecked (in `allow` mode) because Redis could not be reached. */
  get unavailableCount(): number {
    return this.unavailable;
  }

  async check(policies: readonly PolicyCheck[], cost = 1): Promise<RateDecision> {
    validateChecks(policies, cost);
    if (policies.length === 0) return toDecision(policies, [], true);
    const keys = policies.map((p) => this.prefix + p.key);
    const args = policies.flatMap((p) => [p.limit, p.windowSeconds * 1000]);
    if (this.connecting) await this.firstConnection;
    if (this.probing || Date.now() < this.openUntil) return this.cannotCheck(new Error('Redis failed moments ago; not asked again yet.'));
    // The check after the circuit opened probes Redis; every other waits for none until it has answered.
    const probe = this.openUntil > 0;
    if (probe) this.probing = true;
    return new Promise((resolve, reject) => {
      if (this.waiting.length === 0) setImmediate(() => void this.checkWaiting());
      this.waiting.push({ policies, probe, cost, keys, args, resolve, reject });
    });
  }

  /**
   * Asks Redis about the checks of this turn, by one script call per CHECKS_PER_CALL of them, one call after
   * the other: each sees what the one before consumed, and none grows past what a call can carry or waits
   * behind the others past the command time-out.
   */
  private async checkWaiting(): Promise<void> {
    const waiting = this.waiting;
    this.waiting = [];
    for (let i = 0; i < waiting.length; i += CHECKS_PER_CALL) await this.checkBatch(waiting.slice(i, i + CHECKS_PER_CALL));
  }

  private async checkBatch(batch: Waiting[]): Promise<void> {
    const probe = batch.some((check) => check.probe);
    const keys: string[] = [];
    const args: number[] = [EPSILON_MS];
    for (const check of batch) {
      keys.push(...check.keys);
      args.push(check.cost, check.keys.length, ...check.args);
    }
    let reply: number[];
    try {
      reply = await this.redis[COMMAND](keys.length, ...keys, ...args);
      this.openUntil = 0;
    } catch (error) {
      // Every failure counts as "cannot check": a refused connection, a time-out, or a Redis that is loading or read-only.
      this.openUntil = Date.now() + CIRCUIT_OPEN_MS;
      for (const check of batch) {
        try {
          check.resolve(this.cannotCheck(error));
        } catch (refused) {
          check.reject(refused);
        }
      }
      return;
    } finally {
      if (probe) this.probing = false;
    }
    let at = 0;
    for (const { policies, resolve } of batch) {
      const outcomes = policies.map((_, i): PolicyOutcome => ({
        remaining: reply[at + 1 + 3 * i]!,
        resetMs: reply[at + 2 + 3 * i]!,
        retryMs: reply[at + 3 + 3 * i]!,
      }));
      resolve(toDecision(policies, outcomes, reply[at] === 1));
      at += 1 + 3 * policies.length;
    }
  }

  private cannotCheck(error: unknown): RateDecision {
    if (this.onUnavailable === 'refuse') throw new RateLimiterUnavailableError(error);
    this.unavailable += 1;
    return { allowed: true, policies: [], violated: [], retryAfterSeconds: 0 };
  }

  async close(): Promise<void> {
    if (this.redis.status === 'end') return;
    if (this.redis.status !== 'ready') return this.redis.disconnect();
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

/**
 * A connection tuned to fail fast, so that an outage costs a call milliseconds, not a hang:
 * - `enableOfflineQueue: false` fails a command at once while disconnected (the limiter waits for the first
 *   connection itself, so start-up loses nothing);
 * - `maxRetriesPerRequest: 0` fails commands as soon as a connection attempt fails, instead of holding them
 *   through reconnections;
 * - `connectTimeout` (1 s) and `commandTimeout` (`commandTimeoutMs`, 250 ms) bound a Redis that drops packets or
 *   stops answering, and the limiter's circuit breaker keeps calls from paying even that more than once a second;
 * - `retryStrategy` keeps reconnecting in the background (at most 1 s apart), so limits resume on their own;
 * - auto-pipelining stays off: the limiter already sends a turn's checks as one command, and ioredis would
 *   wrap each such command in a pipeline of its own, which cost shared-mode calls about a tenth of their
 *   throughput (docs/benchmarks.md).
 * Errors are reported by `check`; the listener only keeps ioredis from printing each failed reconnection.
 */
export function createRedis(url: string, { commandTimeoutMs = 250 }: { commandTimeoutMs?: number } = {}): Redis {
  const redis = new Redis(url, {
    // A command while disconnected fails at once instead of waiting in a queue for the reconnection.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 1000,
    // A limit check normally takes well under a millisecond; a Redis slower than this is treated as down.
    commandTimeout: commandTimeoutMs,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
  });
  redis.on('error', () => {});
  return redis;
}
