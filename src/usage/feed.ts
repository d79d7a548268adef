/**
 * Usage records as the recorder writes them, for `usage.live`: each flush that commits is handed to every
 * subscriber at once. A subscriber that throws is logged and kept; it cannot stop the others or the flush.
 */
import type { UsageRecordTable } from '../store/schema.js';

export type UsageListener = (rows: readonly UsageRecordTable[]) => void;

export class UsageFeed {
  readonly #listeners = new Set<UsageListener>();

  /** Calls `listener` with each batch of records written from now on; returns what unsubscribes it. */
  subscribe(listener: UsageListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** True while someone follows: the recorder skips the hand-over otherwise. */
  get followed(): boolean {
    return this.#listeners.size > 0;
  }

  publish(rows: readonly UsageRecordTable[]): void {
    for (const listener of this.#listeners) {
      try {
        listener(rows);
      } catch (error) {
        console.error('usage: a live follower failed:', error);
      }
    }
  }
}
