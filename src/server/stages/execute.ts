/**
 * The one executor, for a call and for every request of a batch: the handler runs under the call's deadline
 * inside the call's transaction. On success the events it emitted and the idempotency record of its reply
 * are written in that transaction, which then commits, so effects, events and the stored answer land
 * together or not at all. On failure everything is rolled back and the error reply is stored instead (or the
 * key is left to a retry: an outside effect in flight, a retryable answer; see storeFailure). Once execution
 * has started every outcome is a Reply (errors included); anything that is not an ApiError becomes a 500
 * without its details. A streaming call opens its stream here, right before its handler runs, so that every
 * refusal before is an ordinary JSON error.
 *
 * A batch lends its requests its deadline; an atomic batch also its transaction and event list, and then
 * commits (or rolls back) all of them itself: a failing request's error is thrown to it.
 */
import type { EmittedEvent } from '../../store/events.js';
import { CallTransaction } from '../../store/transaction.js';
import type { Reply, RoutedCall } from '../call.js';
import { callTimeout, ClientGoneError, Deadline } from '../deadline.js';
import { errorReply, successReply } from '../envelope.js';
import { ApiError, meaningOf } from '../../core/errors.js';
import { commitCall, storeFailure } from '../execution.js';
import { invoke, type Invocation } from '../invoke.js';
import type { Runtime } from '../runtime.js';

/** What a batch lends the requests it runs. */
export interface EnclosingBatch {
  readonly deadline: Deadline;
  /** An atomic batch's transaction and events, committed by the batch once every request has run. */
  readonly shared?: { readonly tx: CallTransaction; readonly events: EmittedEvent[] };
}

export async function execute(call: RoutedCall, runtime: Runtime, batch?: EnclosingBatch): Promise<Reply> {
  const channel = call.stream ? call.openStream?.() : undefined;
  const deadline = batch?.deadline ?? new Deadline(callTimeout(call, runtime), call.action.id, channel?.signal);
  const tx = batch?.shared?.tx ?? new CallTransaction(runtime.db);
  const events = batch?.shared?.events ?? [];
  const invocation: Invocation = channel ? { tx, events, deadline, stream: channel.sink } : { tx, events, deadline };
  try {
    // Checks before may have waited (a rate limit on Redis): a handler never starts past the deadline.
    deadline.throwIfStopped();
    const data = await deadline.run(invoke(call, runtime, invocation));
    const reply = successReply(call, runtime, data);
    if (!batch?.shared) await commitCall(call, runtime, tx, events, reply);
    return reply;
  } catch (failure) {
    if (batch?.shared) throw failure;
    let thrown = failure;
    // A refusal that keeps its effects (a declined payment recorded on its intent) commits them first; a code
    // the served catalogue does not declare is a fault, and a fault keeps nothing.
    if (thrown instanceof ApiError && thrown.keepEffects && meaningOf(thrown, runtime.catalogue.errors)) {
      try {
        const reply = errorReply(call, runtime, thrown);
        await commitCall(call, runtime, tx, events, reply);
        return reply;
      } catch (commitFailure) {
        thrown = commitFailure;
      }
    }
    tx.abandon();
    // Nobody reads the answer of a client that went away; it is stored all the same (docs/contract.md § Idempotency), so that a
    // retry under the same key cannot run, and cost, a second time.
    const error = thrown instanceof ClientGoneError ? new ApiError('request_aborted') : thrown;
    return storeFailure(call, runtime, error, invocation.outsideEffect === true);
  } finally {
    if (!batch) deadline.dispose();
  }
}
