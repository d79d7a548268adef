/**
 * Runs a list of stages over a call, as Hono's `compose` does for middleware: every stage has one
 * signature, the first that answers ends the run, and every error, whichever stage threw it, reaches one
 * handler and becomes the call's error reply. The after-answer work runs once, with whatever the answer was.
 */
import type { CallState, Reply } from './call.js';
import type { Stage } from './stage.js';
import { errorReply } from './envelope.js';
import { toApiError } from '../core/errors.js';
import type { Runtime } from './runtime.js';
import { log } from '../core/log.js';

export type CallRunner = (call: CallState, runtime: Runtime) => Promise<Reply>;

export function compose(stages: readonly Stage[]): CallRunner {
  return async (call, runtime) => {
    let reply: Reply;
    try {
      const answer = await runStages(stages, call, runtime);
      if (!answer) throw new Error('The stages ended without an answer.');
      reply = answer;
    } catch (error) {
      reply = errorReply(call, runtime, toApiError(error, call.requestId));
    }
    answered(call, runtime, reply);
    return reply;
  };
}

/** Runs the stages in order until one answers; a refusal is thrown to the caller. */
export async function runStages(stages: readonly Stage[], call: CallState, runtime: Runtime): Promise<Reply | undefined> {
  // An index, not for…of: an iterator each call is garbage on the hot path.
  for (let i = 0; i < stages.length; i++) {
    const outcome = stages[i]!(call, runtime);
    // Most stages are synchronous; awaiting only promises keeps them off the microtask queue.
    const reply = outcome instanceof Promise ? await outcome : outcome;
    if (reply) return reply;
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
