/**
 * In-process GCRA rate limiter (see limiter.ts): exact for one process, used when no Redis is configured
 * and in tests, where a fake clock makes timing deterministic. Limits are not shared between processes.
 */
import { EPSILON_MS, toDecision, validateChecks, type PolicyCheck, type PolicyOutcome, type RateDecision, type RateLimiter } from './limiter.js';

/** How often buckets that have fully replenished are dropped; such a bucket equals an absent one. */
const SWEEP_INTERVAL_MS = 10_000;

export interface MemoryRateLimiterOptions {
  /** Current time in ms; `Date.now` unless a test injects a clock. */
  now?: () => number;
}

export class MemoryRateLimiter implements RateLimiter {
  /** Bucket key → theoretical arrival time (ms). */
  private readonly tats = new Map<string, number>();
  private readonly now: () => number;
  private nextSweep = -Infinity;

  constructor(options: MemoryRateLimiterOptions = {}) {
    this.now = options.now ?? Date.now;
  }

  /** Buckets currently held; bounded because replenished buckets are swept. */
  get size(): number {
    return this.tats.size;
  }

  /**
   * Answers at once: a call need not wait a turn of the event loop for a decision made in memory. Policies
   * it cannot express are refused as the Redis limiter refuses them, with a rejected promise.
   */
  check(policies: readonly PolicyCheck[], cost = 1): RateDecision | Promise<RateDecision> {
    try {
      validateChecks(policies, cost);
    } catch (error) {
      return Promise.reject(error);
    }
    const now = this.now();
    this.sweep(now);

    // One read of each bucket, and nothing stored until every policy has agreed. A key listed twice is
    // charged twice: its second policy starts from the first one's tentative TAT.
    const count = policies.length;
    // A call lists a handful of policies, found again by a scan; an atomic batch may list its buckets hundreds
    // of times (stages/rate-limit.ts), and then each key's latest listing is kept by key.
    const latest = count > SCANNED ? new Map<string, number>() : undefined;
    const tentative = new Array<number>(count);
    const waits = new Array<number>(count);
    let allowed = true;
    for (let i = 0; i < count; i++) {
      const p = policies[i]!;
      const windowMs = p.windowSeconds * 1000;
      const earlier = latest ? (latest.get(p.key) ?? -1) : lastWithKey(policies, p.key, i);
      latest?.set(p.key, i);
      const tat = Math.max(earlier >= 0 ? tentative[earlier]! : (this.tats.get(p.key) ?? now), now);
      const newTat = tat + (cost * windowMs) / p.limit;
      const waitMs = newTat - windowMs - now;
      const ok = cost <= p.limit && waitMs <= EPSILON_MS;
      // A refused policy keeps a positive wait, so that it is named in `violated`.
      waits[i] = ok ? 0 : Math.max(waitMs, 1);
      // A refused step charges nothing, so a later policy of its key starts where it did.
      tentative[i] = ok ? newTat : tat;
      allowed &&= ok;
    }
    const outcomes = new Array<PolicyOutcome>(count);
    for (let i = 0; i < count; i++) {
      const p = policies[i]!;
      // Every policy reports its bucket as it stands after the decision: for a key listed twice, its last charge.
      const last = latest ? latest.get(p.key)! : lastWithKey(policies, p.key, count);
      if (allowed && last === i) this.tats.set(p.key, tentative[i]!);
      const tat = allowed ? tentative[last]! : Math.max(this.tats.get(p.key) ?? now, now);
      outcomes[i] = outcome(p, tat, now, waits[i]!);
    }
    return toDecision(policies, outcomes, allowed);
  }

  async close(): Promise<void> {
    this.tats.clear();
  }

  private sweep(now: number): void {
    if (now < this.nextSweep) return;
    this.nextSweep = now + SWEEP_INTERVAL_MS;
    for (const [key, tat] of this.tats) if (tat <= now) this.tats.delete(key);
  }
}

/** The most policies a check looks through for a key listed again. */
const SCANNED = 8;

/** The index of the last policy before `before` on bucket `key`, or -1. */
function lastWithKey(policies: readonly PolicyCheck[], key: string, before: number): number {
  for (let j = before - 1; j >= 0; j--) if (policies[j]!.key === key) return j;
  return -1;
}

/** The state of one policy whose bucket now stands at `tat`; the Redis script computes the same. */
function outcome(p: PolicyCheck, tat: number, now: number, waitMs: number): PolicyOutcome {
  const windowMs = p.windowSeconds * 1000;
  const interval = windowMs / p.limit;
  const remaining = Math.min(p.limit, Math.max(0, Math.floor((now + windowMs - tat + EPSILON_MS) / interval)));
  const resetMs = Math.max(0, Math.ceil(tat - now - EPSILON_MS));
  const retryMs = waitMs > 0 ? Math.max(1, Math.ceil(waitMs - EPSILON_MS)) : 0;
  return { remaining, resetMs, retryMs };
}
