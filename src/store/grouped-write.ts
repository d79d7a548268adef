/**
 * What one call writes in a group commit (commit-group.ts): its events and its stored reply. A stored reply
 * must complete the claim the call holds, or the write fails.
 */
import type { EventBatch } from './events.js';
import type { IdempotencyCompletion } from './idempotency.js';

export interface GroupedWrite {
  events?: EventBatch;
  completion?: IdempotencyCompletion;
}
