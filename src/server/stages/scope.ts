/**
 * Scopes: the key must hold the one scope the action requires, directly or through `*` or `<face>:*`.
 */
import type { CallState } from '../call.js';
import { invariant } from '../call.js';
import { ApiError } from '../../core/errors.js';
import { holdsScope } from '../../core/grants.js';

/** Refuses the call of action `id` unless its key holds `required`. */
export function requireScope(call: CallState, id: string, required: string): void {
  invariant(call.key, 'the key is known');
  if (!holdsScope(call.key.scopes, required)) {
    throw new ApiError('insufficient_scope', `${id} requires the scope "${required}".`, { details: { requiredScope: required } });
  }
}
