/**
 * The stage contract: one step of the pipeline. It refuses the call by throwing an ApiError, answers it by
 * returning a Reply (a replay, an execution), or lets it pass to the next stage by returning nothing.
 */
import type { CallState, Reply } from './call.js';
import type { Runtime } from './runtime.js';

export type Stage = (call: CallState, runtime: Runtime) => Reply | void | Promise<Reply | void>;
