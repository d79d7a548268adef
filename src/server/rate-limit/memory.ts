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

    // Tentative TATs: nothing is stored until every policy has agreed, and a key listed twice is charged twice.
    const pending = new Map<string, number>();
    const steps = policies.map((p) => {
      const windowMs = p.windowSeconds * 1000;
      const tat = Math.max(pending.get(p.key) ?? this.tats.get(p.key) ?? now, now);
      const newTat = tat + (cost * windowMs) / p.limit;
      const waitMs = newTat - windowMs - now;
      const ok = cost <= p.limit && waitMs <= EPSILON_MS;
      if (ok) pending.set(p.key, newTat);
      return { ok, waitMs };
    });
    const allowed = steps.every((s) => s.ok);
    if (allowed) for (const [key, tat] of pending) this.tats.set(key, tat);

    const outcomes = policies.map((p, i): PolicyOutcome => {
      const step = steps[i]!;
      const tat = Math.max(this.tats.get(p.key) ?? now, now);
      // A refused policy keeps a positive wait, so that it is named in `violated`.
      return outcome(p, tat, now, step.ok ? 0 : Math.max(step.waitMs, 1));
    });
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

/** The state of one policy whose bucket now stands at `tat`; the Redis script computes the same. */
function outcome(p: PolicyCheck, tat: number, now: number, waitMs: number): PolicyOutcome {
  const windowMs = p.windowSeconds * 1000;
  const interval = windowMs / p.limit;
  const remaining = Math.min(p.limit, Math.max(0, Math.floor((now + windowMs - tat + EPSILON_MS) / interval)));
  const resetMs = Math.max(0, Math.ceil(tat - now - EPSILON_MS));
  const retryMs = waitMs > 0 ? Math.max(1, Math.ceil(waitMs - EPSILON_MS)) : 0;
  return { remaining, resetMs, retryMs };
}
