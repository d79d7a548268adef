/**
 * The per-address login throttle of the `auth` face: once 10 logins of one e-mail address failed within 15
 * minutes, every login of that address is refused (429 `rate_limit_exceeded`, with `Retry-After`), the right
 * password too, until the oldest of those 10 is 15 minutes old. A refused login checks no password and counts
 * as no failure, so a refusal lasts at most 15 minutes and only further failures prolong it. The failures are
 * counted in the store (src/faces/auth/throttle-store.ts), so the limit holds across processes, and per address
 * whether or not a user has it, so a refusal reveals no account. A failure commits although its call fails.
 */
import { ApiError } from '../../core/errors.js';
import type { Partition } from '../../store/partition.js';
import { holdLoginFailures, loginFailures, saveLoginFailures, sweepLoginFailures } from './throttle-store.js';
import type { Db } from '../../store/schema.js';
import { afterRollback } from '../../store/transaction.js';

export const LOGIN_FAILURES_ALLOWED = 10;
export const LOGIN_FAILURE_WINDOW_MS = 15 * 60_000;
/** The name a refusal gives in `details.violatedPolicies`. */
const POLICY = 'login-failures';

const iso = (ms: number) => new Date(ms).toISOString();

/** Whole seconds until an address with these failures may log in again at `now`; 0 when it may now. */
export function refusedForSeconds(failures: readonly string[], now: number): number {
  if (failures.length < LOGIN_FAILURES_ALLOWED) return 0;
  const until = Date.parse(failures[failures.length - LOGIN_FAILURES_ALLOWED]!) + LOGIN_FAILURE_WINDOW_MS;
  return until > now ? Math.ceil((until - now) / 1000) : 0;
}

/** The failures to keep once one more happened at `now`: those still within the window, the latest 10 at most. */
export function withFailure(failures: readonly string[], now: number): string[] {
  const since = now - LOGIN_FAILURE_WINDOW_MS;
  return [...failures.filter((at) => Date.parse(at) > since), iso(now)].slice(-LOGIN_FAILURES_ALLOWED);
}

function tooManyFailures(seconds: number): ApiError {
  return new ApiError('rate_limit_exceeded', `Too many failed logins for this e-mail address; retry in ${seconds} s.`, {
    details: { violatedPolicies: [POLICY] },
    headers: { 'Retry-After': String(seconds) },
  });
}

/**
 * Refuses a login of an address whose failures fill the window, as they are committed now. Called before the
 * password is checked (a refused login costs no hashing) and again after a right one (failures of others may
 * have filled the window meanwhile, and the answer must not tell that this password was right).
 * @throws ApiError rate_limit_exceeded (429)
 */
export async function refuseThrottledLogin(db: Db, p: Partition, email: string, now: number): Promise<void> {
  const seconds = refusedForSeconds(await loginFailures(db, p, email), now);
  if (seconds > 0) throw tooManyFailures(seconds);
}

async function recordFailure(db: Db, p: Partition, email: string, now: number): Promise<void> {
  await saveLoginFailures(db, p, email, withFailure(await holdLoginFailures(db, p, email, iso(now)), now));
}

/**
 * What a login whose password was wrong answers: `invalid_credentials`, with the failure recorded (it commits
 * although the call fails), or `rate_limit_exceeded` when failures of others filled the window while this
 * password was checked (then it is not counted). Stale rows of any address are swept on the way.
 */
export async function failedLogin(db: Db, p: Partition, email: string, now: number): Promise<ApiError> {
  const failures = await holdLoginFailures(db, p, email, iso(now));
  const seconds = refusedForSeconds(failures, now);
  if (seconds > 0) return tooManyFailures(seconds);
  await saveLoginFailures(db, p, email, withFailure(failures, now));
  await sweepLoginFailures(db, iso(now - LOGIN_FAILURE_WINDOW_MS));
  // The answer tells that this password was wrong, so the failure counts even if the call's transaction rolls
  // back (an atomic batch aborted by it, a commit that failed): then it is recorded again on its own.
  afterRollback(db, (store) => store.transaction().execute((trx) => recordFailure(trx, p, email, now)));
  return new ApiError('invalid_credentials', undefined, { keepEffects: true });
}
