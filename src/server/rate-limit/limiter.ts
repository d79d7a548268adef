/**
 * What a rate limiter promises (docs/contract.md § Rate limits), shared by the in-process and the Redis implementation, and the
 * `RateLimit-Policy` / `RateLimit` response headers (draft-ietf-httpapi-ratelimit-headers, structured fields).
 *
 * Algorithm: GCRA, the generic cell rate algorithm. A policy of `limit` requests per `windowSeconds` has an
 * emission interval T = windowSeconds * 1000 / limit ms and lets a burst of `limit` through. Each bucket keeps
 * a single number, its theoretical arrival time (TAT, ms): the moment the bucket would be fully replenished.
 * A request of cost n at time `now` is allowed when max(TAT, now) + n*T - window <= now, and then moves TAT
 * there. Unlike fixed windows it never allows 2×limit across a window boundary, and unlike sliding logs it
 * stores one timestamp per key instead of one per request.
 *
 * A call names several policies and is decided on all of them at once: if any would be exceeded, nothing is
 * consumed from any of them, so a refused request costs the caller nothing.
 */

/** One bucket a call is checked against. */
export interface PolicyCheck {
  /** Public policy name, shown in headers and `violatedPolicies`, e.g. `token`, `face-ai`. */
  name: string;
  /** Bucket identity, e.g. `token:key_123`; calls with the same key share one bucket. */
  key: string;
  limit: number;
  windowSeconds: number;
}

/** A policy as it stands after a decision. */
export interface PolicyState {
  name: string;
  limit: number;
  windowSeconds: number;
  /** Requests of cost 1 that would pass right now. */
  remaining: number;
  /** Whole seconds until the policy is fully replenished. */
  resetSeconds: number;
}

export interface RateDecision {
  allowed: boolean;
  /** Every checked policy, in the order given. */
  policies: PolicyState[];
  /** Names of the policies that refused the call; empty when allowed. */
  violated: string[];
  /** Whole seconds after which the same call would pass (rounded up, at least 1); 0 when allowed. */
  retryAfterSeconds: number;
}

/** Thrown by a shared limiter's `check` in `refuse` mode when its store (Redis) cannot answer. */
export class RateLimiterUnavailableError extends Error {
  constructor(cause: unknown) {
    super('The rate-limit store (Redis) is unavailable.', { cause });
    this.name = 'RateLimiterUnavailableError';
  }
}

export interface RateLimiter {
  /** For a limiter kept in another process (Redis): whether it answered when the limiter opened. */
  reachable?(): Promise<boolean>;
  /**
   * Checks a call of `cost` (default 1) against all `policies`, consuming from all of them or from none. A
   * limiter kept in this process answers at once; one kept elsewhere (Redis) with a promise.
   */
  check(policies: readonly PolicyCheck[], cost?: number): RateDecision | Promise<RateDecision>;
  close(): Promise<void>;
  /** Calls let through unchecked because the limiter's store was unreachable (for metrics). */
  readonly unavailableCount?: number;
}

/**
 * Slack in every GCRA comparison, in ms. Absolute times near 1.7e12 ms carry about 2e-4 ms of floating-point
 * error, and T is often not a whole number (1000/3), so without it the third call of a burst of 3 could be
 * refused by rounding. One microsecond early is harmless; a lost burst slot is not. The Redis script uses
 * the same value.
 */
export const EPSILON_MS = 0.001;

/** Per-policy outcome in whole milliseconds, as both implementations compute it. */
export interface PolicyOutcome {
  remaining: number;
  resetMs: number;
  /** 0 when this policy would let the call through. */
  retryMs: number;
}

/** The longest window a policy may have: a century. */
const MAX_WINDOW_SECONDS = 100 * 365 * 24 * 3600;

/** Rejects what GCRA cannot express, before any state is touched. */
export function validateChecks(policies: readonly PolicyCheck[], cost: number): void {
  if (!Number.isFinite(cost) || cost < 0) throw new RangeError(`Rate-limit cost must be a finite number >= 0, not ${cost}.`);
  for (const p of policies) {
    if (!Number.isInteger(p.limit) || p.limit < 1) throw new RangeError(`Policy "${p.name}": limit must be a whole number >= 1.`);
    // Bounded so that a bucket's expiry in ms stays a whole number Redis takes (a century is far beyond any policy).
    if (!(p.windowSeconds > 0) || !(p.windowSeconds <= MAX_WINDOW_SECONDS)) throw new RangeError(`Policy "${p.name}": windowSeconds must be > 0 and at most ${MAX_WINDOW_SECONDS}.`);
  }
}

/** Builds the decision from per-policy outcomes (same order as `policies`). */
export function toDecision(policies: readonly PolicyCheck[], outcomes: PolicyOutcome[], allowed: boolean): RateDecision {
  const violated: string[] = [];
  let retryMs = 0;
  const states = policies.map((p, i): PolicyState => {
    const o = outcomes[i]!;
    if (!allowed && o.retryMs > 0) {
      violated.push(p.name);
      retryMs = Math.max(retryMs, o.retryMs);
    }
    return { name: p.name, limit: p.limit, windowSeconds: p.windowSeconds, remaining: o.remaining, resetSeconds: Math.ceil(o.resetMs / 1000) };
  });
  // Dividing whole milliseconds keeps the ceiling exact, so the advertised wait is never early.
  const retryAfterSeconds = allowed ? 0 : Math.max(1, Math.ceil(retryMs / 1000));
  return { allowed, policies: states, violated, retryAfterSeconds };
}

/** `RateLimit-Policy`: every policy with its quota and window, e.g. `"token";q=100;w=1, "face-ai";q=10;w=1`. */
export function policyHeader(policies: PolicyState[]): string {
  return policies.map((p) => `${sfString(p.name)};q=${p.limit};w=${p.windowSeconds}`).join(', ');
}

/**
 * `RateLimit`: the policy closest to its limit (lowest remaining/limit; on a tie the lower remaining, then the
 * first listed), e.g. `"face-ai";r=0;t=1`. Empty when there are no policies.
 */
export function rateLimitHeader(policies: PolicyState[]): string {
  let closest: PolicyState | undefined;
  for (const p of policies) {
    if (!closest) closest = p;
    else {
      const ratio = p.remaining / p.limit;
      const best = closest.remaining / closest.limit;
      if (ratio < best || (ratio === best && p.remaining < closest.remaining)) closest = p;
    }
  }
  return closest ? `${sfString(closest.name)};r=${closest.remaining};t=${closest.resetSeconds}` : '';
}

/** Policy names as sf-strings: the names come from the catalogue, so there are few, each quoted once. */
const quoted = new Map<string, string>();

/** An RFC 8941 sf-string: only `"` and `\` need escaping in the printable ASCII that policy names use. */
function sfString(value: string): string {
  let text = quoted.get(value);
  if (text === undefined) quoted.set(value, (text = `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`));
  return text;
}
