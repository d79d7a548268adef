/**
 * Ending an execution, shared by single calls and batches: what a call wrote, the events it emitted and its
 * stored reply commit together or not at all; a failure's reply is stored under the call's idempotency key.
 */
import { writeEvents, type EmittedEvent, type EventOrigin } from '../store/events.js';
import type { Db } from '../store/schema.js';
import type { CallTransaction } from '../store/transaction.js';
import type { IdentifiedCall, Reply } from './call.js';
import { errorReply } from './envelope.js';
import { toApiError } from './errors.js';
import type { Runtime } from './runtime.js';
import { completeIdempotency } from './stages/idempotency.js';

/**
 * Writes the events and the stored reply in the call's transaction and commits it. A call that wrote
 * nothing itself joins other calls in a group commit for its events; one that wrote nothing and emitted
 * nothing stores its reply without a transaction (a single statement).
 */
export async function commitCall(call: IdentifiedCall, runtime: Runtime, tx: CallTransaction, events: EmittedEvent[], reply?: Reply): Promise<void> {
  // A call that ran past its lease may find its key taken over by a retry: then its effects must not commit,
  // or the retry's would be a second execution.
  const store = reply && call.idempotency
    ? async (db: Db) => {
        if (!(await completeIdempotency(call, db, reply))) throw new Error(`The idempotency key of ${call.requestId} was taken over by a retry after its lease lapsed.`);
      }
    : undefined;
  if (tx.begun) {
    await writeEvents(tx.db, eventOrigin(call), events);
    await store?.(tx.db);
  } else if (events.length > 0) {
    await runtime.commits.commit({ origin: eventOrigin(call), events, ...(store ? { then: store } : {}) });
  } else {
    await store?.(runtime.db);
  }
  await tx.commit();
}

/** The error reply of a call whose execution failed, stored under its idempotency key. */
export async function storeFailure(call: IdentifiedCall, runtime: Runtime, thrown: unknown): Promise<Reply> {
  const reply = errorReply(call, runtime, toApiError(thrown, call.requestId));
  await completeIdempotency(call, runtime.db, reply);
  return reply;
}

function eventOrigin(call: IdentifiedCall): EventOrigin {
  const idempotencyKey = call.envelope.options.idempotencyKey;
  return {
    mode: call.mode,
    entityId: call.entityId,
    apiVersion: call.apiVersion,
    requestId: call.requestId,
    ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
  };
}
