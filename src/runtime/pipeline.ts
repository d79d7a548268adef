/**
 * The pipeline of API.md §6 for one call: authenticate → entity → version → route → scope → rate limit
 * → validate → idempotency → execute. A stage that refuses the call throws (and nothing is stored); once
 * execution starts, the outcome is a Reply, stored for the call's idempotency key.
 */
import type { CallState, Reply, RuntimeDeps } from './call.js';
import { authenticate } from './stages/authenticate.js';
import { entity } from './stages/entity.js';
import { execute } from './stages/execute.js';
import { claimIdempotency, completeIdempotency } from './stages/idempotency.js';
import { rateLimit } from './stages/rate-limit.js';
import { route } from './stages/route.js';
import { scope } from './stages/scope.js';
import { validate } from './stages/validate.js';
import { version } from './stages/version.js';

export async function runCall(call: CallState, deps: RuntimeDeps): Promise<Reply> {
  await authenticate(call, deps);
  entity(call);
  version(call);
  route(call);
  scope(call);
  await rateLimit(call, deps);
  validate(call);
  const replay = await claimIdempotency(call, deps);
  if (replay) return replay;
  const reply = await execute(call, deps);
  await completeIdempotency(call, deps, reply);
  return reply;
}
