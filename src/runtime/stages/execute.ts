/**
 * Execution: the handler runs under the call's deadline inside the call's transaction. On success the
 * events it emitted and the idempotency record of its reply are written in that transaction, which then
 * commits, so effects, events and the stored answer land together or not at all. On failure everything is
 * rolled back and the error reply is stored instead. Once execution has started every outcome is a Reply
 * (errors included); anything that is not an ApiError becomes a 500 without its details.
 */
import { writeEvents, type EmittedEvent } from '../../store/events.js';
import type { Db } from '../../store/schema.js';
import { CallTransaction } from '../../store/transaction.js';
import { runBatch } from '../batch.js';
import type { CallState, Reply, RuntimeDeps } from '../call.js';
import type { StreamSink } from '../context.js';
import { ClientGoneError, Deadline } from '../deadline.js';
import { errorReply, successReply } from '../envelope.js';
import { ApiError, toApiError } from '../errors.js';
import { invoke } from '../invoke.js';
import { completeIdempotency } from './idempotency.js';

export interface StreamChannel {
  sink: StreamSink;
  /** Aborts when the client disconnects. */
  signal: AbortSignal;
}

export async function execute(call: CallState, deps: RuntimeDeps, channel?: StreamChannel): Promise<Reply> {
  if (call.batch) return runBatch(call, deps).catch((thrown: unknown) => storeFailure(call, deps, thrown));
  const deadline = new Deadline(call, channel?.signal);
  const tx = new CallTransaction(deps.db);
  const events: EmittedEvent[] = [];
  try {
    const data = await deadline.run(invoke(call, deps, { tx, events, signal: deadline.signal, ...(channel ? { stream: channel.sink } : {}) }));
    const reply = successReply(call, deps.serverVersion, data);
    await commitCall(call, deps, tx, events, reply);
    return reply;
  } catch (thrown) {
    tx.abandon();
    // Nobody reads the answer of a client that went away; it is stored all the same (API.md §9), so that a
    // retry under the same key cannot run, and cost, a second time.
    const error = thrown instanceof ClientGoneError ? new ApiError('request_aborted') : thrown;
    return storeFailure(call, deps, error);
  } finally {
    deadline.dispose();
  }
}

/**
 * Writes the events and the stored reply in the call's transaction and commits it. A call that wrote
 * nothing itself joins other calls in a group commit for its events; one that wrote nothing and emitted
 * nothing stores its reply without a transaction (a single statement).
 */
export async function commitCall(call: CallState, deps: RuntimeDeps, tx: CallTransaction, events: EmittedEvent[], reply?: Reply): Promise<void> {
  const store = reply && call.idempotency ? (db: Db) => completeIdempotency(call, db, reply) : undefined;
  if (tx.begun) {
    await writeEvents(tx.db, eventOrigin(call), events);
    await store?.(tx.db);
  } else if (events.length > 0) {
    await deps.commits.commit({ origin: eventOrigin(call), events, ...(store ? { then: store } : {}) });
  } else {
    await store?.(deps.db);
  }
  await tx.commit();
}

/** The error reply of a call whose execution failed, stored under its idempotency key. */
export async function storeFailure(call: CallState, deps: RuntimeDeps, thrown: unknown): Promise<Reply> {
  const reply = errorReply(call, deps.serverVersion, toApiError(thrown, call.requestId));
  await completeIdempotency(call, deps.db, reply);
  return reply;
}

function eventOrigin(call: CallState) {
  return {
    mode: call.mode!,
    entityId: call.entityId!,
    apiVersion: call.apiVersion!,
    requestId: call.requestId,
    ...(call.envelope.options.idempotencyKey !== undefined ? { idempotencyKey: call.envelope.options.idempotencyKey } : {}),
  };
}
