/**
 * Usage records as the recorder writes them, for `usage.live`: each flush that commits is handed to every
 * subscriber at once. A subscriber that throws is logged and kept; it cannot stop the others or the flush.
 */
import type { UsageRecordTable } from '../../store/schema.js';
import { log } from '../../core/log.js';

export type UsageListener = (rows: readonly UsageRecordTable[]) => void;

export class UsageFeed {
  /** Each follower, with what ends it when the server stops. */
  readonly #listeners = new Map<UsageListener, () => void>();
  /** Told when the feed gains its first follower (true) or loses its last (false). */
  onFollowed: ((followed: boolean) => void) | undefined;

  /**
   * Calls `listener` with each batch of records written from now on, until the returned function is called;
   * `end` is called if the server stops first.
   */
  subscribe(listener: UsageListener, end: () => void = () => undefined): () => void {
    this.#listeners.set(listener, end);
    if (this.#listeners.size === 1) this.onFollowed?.(true);
    return () => {
      if (this.#listeners.delete(listener) && this.#listeners.size === 0) this.onFollowed?.(false);
    };
  }

  /** True while someone follows: the recorder skips the hand-over otherwise. */
  get followed(): boolean {
    return this.#listeners.size > 0;
  }

  /** Ends every follower (the server is stopping: streams end with their result rather than hold the stop). */
  endAll(): void {
    for (const end of [...this.#listeners.values()]) end();
  }

  publish(rows: readonly UsageRecordTable[]): void {
    for (const listener of this.#listeners.keys()) {
      try {
        listener(rows);
      } catch (error) {
        log.error({ err: error }, 'usage: a live follower failed');
      }
    }
  }
}
