/**
 * The pipeline of docs/contract.md § Pipeline, written once: parse → authenticate → entity → version → the checks (route,
 * scope, rate limit, validate; shared with batch requests) → batch preparation → idempotency → execute. A
 * stage that refuses the call throws (and nothing is stored); once execution starts, the outcome is a
 * Reply, stored for the call's idempotency key. After the answer, the runtime's after-answer work runs.
 */
import { runBatch, prepareBatch } from './batch.js';
import { assertRouted, isBatchCall } from './call.js';
import type { Stage } from './stage.js';
import { compose } from './compose.js';
import { authenticate } from './stages/authenticate.js';
import { checks } from './stages/checks.js';
import { entity } from './stages/entity.js';
import { execute as executeCall } from './stages/execute.js';
import { claimIdempotency } from './stages/idempotency.js';
import { parse } from './stages/parse.js';
import { version } from './stages/version.js';

const execute: Stage = (call, runtime) => {
  assertRouted(call);
  return isBatchCall(call) ? runBatch(call, runtime) : executeCall(call, runtime);
};

export const stages: readonly Stage[] = [parse, authenticate, entity, version, ...checks, prepareBatch, claimIdempotency, execute];

/** Runs one call through every stage; resolves to its answer, errors included. */
export const runCall = compose(stages);
