/**
 * The checks every call passes once its caller, entity and version are known, and every request of a batch
 * passes as a call of its own (docs/contract.md § Pipeline, § Batches): route, then the action's own checks
 * (scope, rate limit, stream, payload), as the generator wrote them for it (generated/server/pipelines/).
 * Written once here, run by the pipeline and by the batch runner.
 */
import { assertRouted } from '../call.js';
import type { Stage } from '../stage.js';
import { route } from './route.js';

/** The checks the route stage found for the call's action. */
const actionChecks: Stage = (call, runtime) => {
  assertRouted(call);
  return call.checks(call, runtime);
};

export const checks: readonly Stage[] = [route, actionChecks];
