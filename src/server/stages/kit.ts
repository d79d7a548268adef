/**
 * The stage kit: what the generated checks of each action (generated/server/pipelines/<face>.js) are written
 * in. Each is a stage of docs/contract.md § Pipeline, given as arguments what the face file fixes (the action's
 * id, its scope, its validators), so that a call looks up nothing that was known when the catalogue was
 * generated, and runs only the checks its action can fail.
 */
import type { ActionChecks, CallState } from '../call.js';
import type { Runtime } from '../runtime.js';
import { refuseInAtomicBatch } from './atomic-only.js';
import { rateLimit } from './rate-limit.js';
import { requireScope } from './scope.js';
import { refuseStream, requireStream } from './stream.js';
import { validatePayload } from './validate.js';

/** Runs `next` once `outcome` has settled: at once when it is not a promise, so that a call stays synchronous. */
function after(outcome: void | Promise<void>, next: () => void): void | Promise<void> {
  return outcome instanceof Promise ? outcome.then(next) : next();
}

export const kit = {
  atomicOnly: refuseInAtomicBatch,
  scope: requireScope,
  rateLimit: rateLimit as (call: CallState, runtime: Runtime) => void | Promise<void>,
  noStream: refuseStream,
  streamOnly: requireStream,
  validate: validatePayload,
  after,
};

export type StageKit = typeof kit;

/** What a pipeline module exports per action: given the kit, the action's checks, as one stage. */
export type ActionChecksMaker = (kit: StageKit) => ActionChecks;
