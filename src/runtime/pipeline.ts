/**
 * The pipeline of API.md §6 for one call: authenticate → entity → version → route → scope → validate →
 * execute. Rate limits and idempotency take their places between scope and execute.
 */
import type { CallState, RuntimeDeps } from './call.js';
import { authenticate } from './stages/authenticate.js';
import { entity } from './stages/entity.js';
import { execute } from './stages/execute.js';
import { route } from './stages/route.js';
import { scope } from './stages/scope.js';
import { validate } from './stages/validate.js';
import { version } from './stages/version.js';

export async function runCall(call: CallState, deps: RuntimeDeps): Promise<unknown> {
  await authenticate(call, deps);
  entity(call);
  version(call);
  route(call);
  scope(call);
  validate(call);
  return execute(call, deps);
}
