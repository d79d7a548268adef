/**
 * The pipeline of API.md §6 for one call: authenticate → entity → version → route → scope → rate limit
 * → validate (with the requests of a batch) → idempotency → execute. A stage that refuses the call throws
 * (and nothing is stored); once execution starts, the outcome is a Reply, stored for the call's
 * idempotency key. A streaming call opens its stream right before execution, so every refusal before it is
 * an ordinary JSON error.
 */
import { prepareBatch } from './batch.js';
import type { CallState, Reply, RuntimeDeps } from './call.js';
import { BATCH_ACTION } from './dispatch-types.js';
import { authenticate } from './stages/authenticate.js';
import { entity } from './stages/entity.js';
import { execute, type StreamChannel } from './stages/execute.js';
import { claimIdempotency } from './stages/idempotency.js';
import { rateLimit } from './stages/rate-limit.js';
import { route } from './stages/route.js';
import { scope } from './stages/scope.js';
import { validate } from './stages/validate.js';
import { version } from './stages/version.js';

export async function runCall(call: CallState, deps: RuntimeDeps, openStream: () => StreamChannel): Promise<Reply> {
  await authenticate(call, deps);
  entity(call);
  version(call);
  route(call);
  scope(call);
  await rateLimit(call, deps);
  validate(call);
  if (call.action!.id === BATCH_ACTION) await prepareBatch(call, deps);
  const replay = await claimIdempotency(call, deps);
  if (replay) return replay;
  return execute(call, deps, call.stream ? openStream() : undefined);
}
