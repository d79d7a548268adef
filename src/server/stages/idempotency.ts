/**
 * Idempotency (docs/contract.md § Idempotency). A key (header or option) is scoped to (API key, mode, entity) and bound to a
 * fingerprint of the call: face, action, resolved version and canonical payload. The first call claims it
 * and its reply is stored once execution has started, errors included (but for the two that leave the key to
 * a retry: see storeFailure in execution.ts); a later call with the same key
 * and fingerprint gets that reply again with `Idempotent-Replayed: true` and causes nothing; the same key
 * while the first is still running is 409, and with another fingerprint 422.
 */
import { canonicalJson } from '../../spec/json-schema.js';
import { claimIdempotencyKey, completeIdempotencyKey, type IdempotencyCompletion } from '../../store/idempotency.js';
import type { Db } from '../../store/schema.js';
import { assertRouted, type CallState, type IdempotencyClaim, type Reply, type RoutedCall } from '../call.js';
import type { Runtime } from '../runtime.js';
import type { Stage } from '../stage.js';
import { ApiError } from '../../core/errors.js';
import { sha256 } from '../../store/secrets.js';
import { isoTime } from '../../store/instant.js';
import { callTimeout } from '../deadline.js';
import { bodyText } from '../envelope.js';

/** Per-request headers that a replay takes from the new request, not from the stored reply. */
const PER_REQUEST = new Set(['RateLimit', 'RateLimit-Policy']);

/** Claims the call's idempotency key; returns the stored reply when the call was already answered. */
export const claimIdempotency: Stage = (call, runtime) => {
  assertRouted(call);
  const key = call.envelope.options.idempotencyKey;
  // Most calls send no key: they pass at once, without a promise.
  return key === undefined ? undefined : claim(call, runtime, key);
};

async function claim(call: RoutedCall, runtime: Runtime, key: string): Promise<Reply | undefined> {
  const { face, action, payload } = call.envelope;
  const now = Date.now();
  // Objects written out, not spread: a spread here cost more than the rest of the claim's own work.
  const scope = `${call.key.id}:${call.mode}:${call.entityId}`;
  const fingerprint = sha256(canonicalJson({ face, action, version: call.apiVersion, payload }));
  const leaseUntil = isoTime(now + callTimeout(call, runtime) + runtime.idempotencyLeaseMarginMs);
  const result = await claimIdempotencyKey(runtime.db, {
    scope,
    key,
    fingerprint,
    leaseUntil,
    now: isoTime(now),
    expiresAt: isoTime(now + runtime.idempotencyTtlSeconds * 1000),
  });
  if (result.claimed) {
    call.idempotency = { scope, key, fingerprint, leaseUntil, since: result.since };
    return undefined;
  }
  const record = result.record;
  if (record.fingerprint !== fingerprint) {
    throw new ApiError('idempotency_key_reused', 'This idempotency key was used with a different request.', { param: '/options/idempotencyKey' });
  }
  if (record.state === 'running' || record.status === null || record.body === null) {
    throw new ApiError('idempotency_key_in_use', 'A request with this idempotency key is still running; retry shortly.', { headers: { 'Retry-After': '1' } });
  }
  const stored = JSON.parse(record.headers ?? '{}') as Record<string, string>;
  call.replayed = true;
  const current = Object.fromEntries(Object.entries(call.responseHeaders).filter(([name]) => PER_REQUEST.has(name)));
  return { status: record.status, headers: { ...stored, ...current, 'Idempotent-Replayed': 'true' }, body: JSON.parse(record.body) };
};

/**
 * Stores the reply of a call that claimed a key. Given the call's transaction, the reply commits with the
 * call's effects, so an answer is never lost for work that was done. False when the claim is no longer this
 * call's: it ran past its lease and another request took the key over.
 */
export async function completeIdempotency(call: CallState, db: Db, reply: Reply): Promise<boolean> {
  if (!call.idempotency) return true;
  return completeIdempotencyKey(db, idempotencyCompletion(call.idempotency, reply));
}

/** The reply of a call, as it is stored under the key it claimed. */
export function idempotencyCompletion(claim: IdempotencyClaim, reply: Reply): IdempotencyCompletion {
  const headers: Record<string, string> = {};
  for (const name in reply.headers) if (!PER_REQUEST.has(name)) headers[name] = reply.headers[name]!;
  const { scope, key, leaseUntil } = claim;
  return { scope, key, leaseUntil, status: reply.status, body: bodyText(reply.body), headers: JSON.stringify(headers) };
}
