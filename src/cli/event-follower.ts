/**
 * Follows a running server's event log (the `events` face, docs/contract.md § Event log) from the moment it
 * starts, for `dispatch listen`: each poll reads the events stored since the newest one seen and answers those
 * not seen before, oldest first.
 *
 * The log orders by the time an event was stored with its call's effects, which is taken just before the call
 * commits: a call that commits a moment after another can hold the earlier time. So each poll reads back a short
 * window before the newest event seen and skips the ids it already answered, rather than starting just after it.
 */
import type { DispatchClient, EventsEvent as Event } from '../../generated/client/index.js';

/** How far before the newest event seen each poll reads again, for calls that committed late. */
export const LATE_COMMIT_MS = 10_000;

/** The largest page the log answers, so a poll takes as few requests as it can. */
const PAGE = 100;

export class EventFollower {
  readonly #events: DispatchClient['events'];
  readonly #types: string[] | undefined;
  /** The events answered (or there before the start) within the window, by id, with their time in ms. */
  readonly #seen = new Map<string, number>();
  /** The time of the newest event seen, in ms; undefined while the log holds none. */
  #newest: number | undefined;

  /** `types`: the patterns events must match (`*`, `<face>.*`, exact types); all events when undefined. */
  constructor(events: DispatchClient['events'], types?: string[]) {
    this.#events = events;
    this.#types = types;
  }

  /** Takes every event already in the log as seen, so only later ones are answered. Refuses bad patterns. */
  async start(signal?: AbortSignal): Promise<void> {
    const page = await this.#events.list({ ...this.#filter(), limit: 1 }, { signal });
    const newest = page.items[0];
    if (newest) this.#take(await this.#since(Date.parse(newest.timestamp), signal));
  }

  /** The events stored since the last poll (or the start), oldest first. */
  async poll(signal?: AbortSignal): Promise<Event[]> {
    const fresh = (await this.#since(this.#newest, signal)).filter((e) => !this.#seen.has(e.id));
    this.#take(fresh);
    return fresh.sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** Every event of the window that ends at `newest` and what came after it; the whole log when undefined. */
  #since(newest: number | undefined, signal?: AbortSignal): Promise<Event[]> {
    const from = newest === undefined ? {} : { from: new Date(newest - LATE_COMMIT_MS).toISOString() };
    return this.#events.list({ ...this.#filter(), ...from, limit: PAGE }, { signal }).toArray();
  }

  #take(events: readonly Event[]): void {
    for (const event of events) {
      const at = Date.parse(event.timestamp);
      this.#seen.set(event.id, at);
      if (this.#newest === undefined || at > this.#newest) this.#newest = at;
    }
    if (this.#newest === undefined) return;
    // An event older than the window is never read again, so its id need not be kept.
    const windowStart = this.#newest - LATE_COMMIT_MS;
    for (const [id, at] of this.#seen) if (at < windowStart) this.#seen.delete(id);
  }

  #filter(): { types?: string[] } {
    return this.#types ? { types: this.#types } : {};
  }
}
