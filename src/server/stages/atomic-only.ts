/**
 * In an atomic batch, a request whose action has effects outside the store (`atomic: false`: a live model
 * call, an e-mail) cannot be rolled back, so the batch is refused before anything runs (docs/contract.md § Batches).
 */
import { assertRouted } from '../call.js';
import type { Stage } from '../stage.js';
import { ApiError } from '../../core/errors.js';

export const atomicOnly: Stage = (call) => {
  assertRouted(call);
  const item = call.item;
  // Only the requests of an atomic batch collect their rate limits to be taken together.
  if (!item?.atomicLimits || call.action.atomic) return;
  throw new ApiError('atomic_not_supported', `Request "${item.id}" calls ${call.action.id}, which has effects outside the store; run it in a bestEffort batch or on its own.`, {
    param: `/payload/requests/${item.index}`,
    details: { request: item.id, action: call.action.id },
  });
};
