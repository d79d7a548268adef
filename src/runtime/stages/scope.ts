/**
 * Scopes: the key must hold the one scope the action requires, directly or through `*` or `<face>:*`.
 */
import { assertRouted, type Stage } from '../call.js';
import { ApiError } from '../errors.js';

export const scope: Stage = (call) => {
  assertRouted(call);
  const required = call.action.scope;
  if (!holdsScope(call.key.scopes, required)) {
    throw new ApiError('insufficient_scope', `${call.action.id} requires the scope "${required}".`, { details: { requiredScope: required } });
  }
};

export function holdsScope(held: readonly string[], required: string): boolean {
  const family = `${required.slice(0, required.indexOf(':'))}:*`;
  return held.some((s) => s === '*' || s === required || s === family);
}
