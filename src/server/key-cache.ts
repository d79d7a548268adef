/**
 * API keys by secret hash, cached in memory so that authentication does not hit the store on every call.
 * An entry lives `ttlMs`; that bounds how long another process may still accept a key revoked elsewhere.
 * A revocation through this process drops the entry at once. Unknown hashes are cached too, so a flood of
 * bad keys cannot turn into a flood of queries.
 */
import type { Db } from '../store/schema.js';
import { onKeyChanged } from '../store/key-changes.js';
import { findKeyByHash, type KeyRecord } from '../store/keys.js';

type Found = (KeyRecord & { hash: string }) | undefined;

const MAX_ENTRIES = 10_000;

export class KeyCache {
  private readonly entries = new Map<string, { found: Found; until: number }>();
  /** Bumped by every forget, so that a lookup which started before a revocation cannot cache its stale result. */
  private generation = 0;

  /** Stops listening for key changes. */
  readonly close: () => void;

  constructor(
    private readonly db: Db,
    private readonly ttlMs: number,
  ) {
    this.close = onKeyChanged((id) => this.forget(id));
  }

  async get(hash: string): Promise<Found> {
    const now = Date.now();
    const hit = this.entries.get(hash);
    if (hit && hit.until > now) return hit.found;
    const generation = this.generation;
    const found = await findKeyByHash(this.db, hash);
    if (generation !== this.generation) return findKeyByHash(this.db, hash);
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(hash, { found, until: now + this.ttlMs });
    return found;
  }

  /** Forgets a key at once, after it was revoked, rotated or expired. */
  forget(id: string): void {
    this.generation++;
    for (const [hash, entry] of this.entries) if (entry.found?.id === id) this.entries.delete(hash);
  }
}
