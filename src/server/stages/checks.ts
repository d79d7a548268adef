/**
 * The checks every call passes once its caller, entity and version are known, and every request of a batch
 * passes as a call of its own (docs/contract.md § Pipeline, § Batches): route, scope, rate limit, then what the call asks (a stream or
 * not, its payload). Written once here, run by the pipeline and by the batch runner.
 */
import type { Stage } from '../stage.js';
import { atomicOnly } from './atomic-only.js';
import { rateLimit } from './rate-limit.js';
import { route } from './route.js';
import { scope } from './scope.js';
import { stream } from './stream.js';
import { validate } from './validate.js';

export const checks: readonly Stage[] = [route, atomicOnly, scope, rateLimit, stream, validate];
