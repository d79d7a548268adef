/**
 * Execution of a single call: the handler runs under the call's deadline inside the call's transaction. On
 * success the events it emitted and the idempotency record of its reply are written in that transaction,
 * which then commits, so effects, events and the stored answer land together or not at all. On failure
 * everything is rolled back and the error reply is stored instead (or the key is left to a retry: an
 * outside effect in flight, a retryable answer; see storeFailure). Once execution has started every
 * outcome is a Reply (errors included); anything that is not an ApiError becomes a 500 without its details.
 * A streaming call opens its stream here, right before its handler runs, so that every refusal before is
 * an ordinary JSON error.
 */
import type { EmittedEvent } from '../../store/events.js';
import { CallTransaction } from '../../store/transaction.js';
import { assertRouted, type Reply, type RoutedCall } from '../call.js';
import { callTimeout, ClientGoneError, Deadline } from '../deadline.js';
import { errorReply, successReply } from '../envelope.js';
import { ApiError } from '../errors.js';
import { commitCall, storeFailure } from '../execution.js';
import { invoke, type Invocation } from '../invoke.js';
import type { Runtime } from '../runtime.js';

export async function executeCall(call: RoutedCall, runtime: Runtime): Promise<Reply> {
  assertRouted(call);
  const channel = call.stream ? call.openStream?.() : undefined;
  const deadline = new Deadline(callTimeout(call, runtime), call.action.id, channel?.signal);
  const tx = new CallTransaction(runtime.db);
  const events: EmittedEvent[] = [];
  const invocation: Invocation = { tx, events, deadline, ...(channel ? { stream: channel.sink } : {}) };
  try {
    deadline.throwIfStopped();
    const data = await deadline.run(invoke(call, runtime, invocation));
    const reply = successReply(call, runtime, data);
    await commitCall(call, runtime, tx, events, reply);
    return reply;
  } catch (failure) {
    let thrown = failure;
    if (thrown instanceof ApiError && thrown.keepEffects) {
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
    deadline.dispose();
  }
}
