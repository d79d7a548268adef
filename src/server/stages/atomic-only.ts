/**
 * In an atomic batch, a request whose action has effects outside the store (`atomic: false`: a live model
 * call, an e-mail) cannot be rolled back, so the batch is refused before anything runs (docs/contract.md § Batches).
 * Only such actions run this check.
 */
import type { CallState } from '../call.js';
import { ApiError } from '../../core/errors.js';

/** For action `id`, which has effects outside the store. */
export function refuseInAtomicBatch(call: CallState, id: string): void {
  const item = call.item;
  // Only the requests of an atomic batch collect their rate limits to be taken together.
  if (!item?.atomicLimits) return;
  throw new ApiError('atomic_not_supported', `Request "${item.id}" calls ${id}, which has effects outside the store; run it in a bestEffort batch or on its own.`, {
    param: `/payload/requests/${item.index}`,
    details: { request: item.id, action: id },
  });
}
