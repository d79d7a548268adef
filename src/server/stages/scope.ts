/**
 * Scopes: the key must hold the one scope the action requires, directly or through `*` or `<face>:*`.
 */
import { assertRouted } from '../call.js';
import type { Stage } from '../stage.js';
import { ApiError } from '../../core/errors.js';
import { holdsScope } from '../../core/grants.js';

export const scope: Stage = (call) => {
  assertRouted(call);
  const required = call.action.scope;
  if (!holdsScope(call.key.scopes, required)) {
    throw new ApiError('insufficient_scope', `${call.action.id} requires the scope "${required}".`, { details: { requiredScope: required } });
  }
};
