/**
 * Runs a list of stages over a call, as Hono's `compose` does for middleware: every stage has one
 * signature, the first that answers ends the run, and every error, whichever stage threw it, reaches one
 * handler and becomes the call's error reply. The after-answer work runs once, with whatever the answer was.
 *
 * The run stays synchronous until a stage returns a promise: a call refused by a synchronous check (a 401
 * for a known-bad key, a 404, a 403, a 400) is answered in the same turn, with no promise made for it.
 */
import type { CallState, Reply } from './call.js';
import type { Stage } from './stage.js';
import { errorReply } from './envelope.js';
import { toApiError } from '../core/errors.js';
import type { Runtime } from './runtime.js';
import { log } from '../core/log.js';

/** Answers a call: at once when every stage it ran was synchronous, else with a promise. */
export type CallRunner = (call: CallState, runtime: Runtime) => Reply | Promise<Reply>;

export function compose(stages: readonly Stage[]): CallRunner {
  return (call, runtime) => {
    const fail = (error: unknown) => finish(call, runtime, errorReply(call, runtime, toApiError(error, call.requestId)));
    let outcome: Reply | undefined | Promise<Reply | undefined>;
    try {
      outcome = runStages(stages, call, runtime);
    } catch (error) {
      return fail(error);
    }
    if (outcome instanceof Promise) return outcome.then((answer) => finish(call, runtime, answer), fail);
    return finish(call, runtime, outcome);
  };
}

function finish(call: CallState, runtime: Runtime, answer: Reply | undefined): Reply {
  const reply = answer ?? errorReply(call, runtime, toApiError(new Error('The stages ended without an answer.'), call.requestId));
  answered(call, runtime, reply);
  return reply;
}

/**
 * Runs the stages in order until one answers; a refusal is thrown to the caller (or rejects, once a stage
 * has returned a promise).
 */
export function runStages(stages: readonly Stage[], call: CallState, runtime: Runtime, from = 0): Reply | undefined | Promise<Reply | undefined> {
  // An index, not for…of: an iterator each call is garbage on the hot path.
  for (let i = from; i < stages.length; i++) {
    const outcome = stages[i]!(call, runtime);
    // Most stages are synchronous; only a promise sends the rest of the run to the microtask queue.
    if (outcome instanceof Promise) return outcome.then((reply) => reply ?? runStages(stages, call, runtime, i + 1));
    if (outcome) return outcome;
  }
  return undefined;
}

/** The after-answer work of a call whose answer is decided. */
export function answered(call: CallState, runtime: Runtime, reply: Reply): void {
  for (const after of runtime.afterAnswer) {
    try {
      after(call, reply);
    } catch (error) {
      // The answer is decided (and may be committed): a fault in recording it must not change it.
      log.error({ requestId: call.requestId, err: error }, 'after-answer work failed');
    }
  }
}
