/**
 * Ending an execution, shared by single calls and batches: what a call wrote, the events it emitted and its
 * stored reply commit together or not at all; a failure's reply is stored under the call's idempotency key,
 * or the key is left to a retry (storeFailure).
 */
import { writeEvents, type EmittedEvent, type EventOrigin } from '../store/events.js';
import { ClaimNoLongerHeld } from '../store/commit-group.js';
import { completeIdempotencyKey, lapseIdempotencyLease, releaseIdempotencyKey } from '../store/idempotency.js';
import type { CallTransaction } from '../store/transaction.js';
import type { IdentifiedCall, Reply } from './call.js';
import { answeredError } from './envelope.js';
import { answerable, type ErrorMeaning } from '../core/errors.js';
import type { Runtime } from './runtime.js';
import { completeIdempotency, idempotencyCompletion } from './stages/idempotency.js';

/**
 * Writes the events and the stored reply in the call's transaction and commits it. A call that wrote
 * nothing itself joins other calls in a group commit for its events and its stored reply.
 */
export async function commitCall(call: IdentifiedCall, runtime: Runtime, tx: CallTransaction, events: EmittedEvent[], reply?: Reply): Promise<void> {
  // A call that ran past its lease may find its key taken over by a retry: then its effects must not commit,
  // or the retry's would be a second execution.
  const completion = reply && call.idempotency ? idempotencyCompletion(call.idempotency, reply) : undefined;
  if (tx.begun) {
    await writeEvents(tx.db, eventOrigin(call), events);
    if (completion && !(await completeIdempotencyKey(tx.db, completion))) throw new ClaimNoLongerHeld([completion.key]);
  } else if (events.length > 0 || completion) {
    await runtime.commits.commit({ events: events.length > 0 ? { origin: eventOrigin(call), events } : undefined, completion });
  }
  await tx.commit();
}

/**
 * The error reply of a call whose execution failed, stored under its idempotency key, except where a retry
 * under the same key must be able to do better (docs/calling.md § Idempotency): when an outside effect the call started
 * may still be in flight (`inFlight`: a charge sent to the processor and not answered), nothing is stored and
 * the key's lease lapses at once, so the same call under the key runs again and resumes that effect; when the
 * answer is retryable (429, 502, 503) and nothing took effect, the key is freed, as for a refusal before
 * execution.
 */
export async function storeFailure(call: IdentifiedCall, runtime: Runtime, thrown: unknown, inFlight = false): Promise<Reply> {
  const resolved = answerable(thrown, runtime.catalogue.errors, call.requestId);
  const reply = answeredError(call, runtime, resolved);
  if (!call.idempotency) return reply;
  if (inFlight) await lapseIdempotencyLease(runtime.db, call.idempotency, new Date().toISOString());
  else if (leavesKeyFree(resolved.meaning) && !committedRequests(call)) await releaseIdempotencyKey(runtime.db, call.idempotency);
  else await completeIdempotency(call, runtime.db, reply);
  return reply;
}

/** A refusal that a later try of the same request can turn into success: a busy or failing backend, a limit. */
function leavesKeyFree(error: ErrorMeaning): boolean {
  return error.retryable && (error.status === 429 || error.status === 502 || error.status === 503);
}

/** A best-effort batch commits each request as it runs: once one has, a retry under its key must not run it again. */
function committedRequests(call: IdentifiedCall): boolean {
  return call.batch?.mode === 'bestEffort' && call.batch.answered === true;
}

function eventOrigin(call: IdentifiedCall): EventOrigin {
  const origin: EventOrigin = { mode: call.mode, entityId: call.entityId, apiVersion: call.apiVersion, requestId: call.requestId };
  const idempotencyKey = call.envelope.options.idempotencyKey;
  if (idempotencyKey !== undefined) origin.idempotencyKey = idempotencyKey;
  return origin;
}
