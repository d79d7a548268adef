/**
 * API keys by secret hash, cached in memory so that authentication does not hit the store on every call.
 * An entry lives `ttlMs`; that bounds how long another process may still accept a key revoked elsewhere,
 * and how long a key made elsewhere may still be refused here. A revocation through this process drops the
 * entry at once.
 *
 * Unknown hashes are cached too, apart from the known ones, so that a flood of bad keys costs neither a
 * query each nor the known keys their place. Each side holds at most `maxEntries`: past that the oldest
 * entry goes, so memory stays bounded whatever is sent.
 */
import type { Db } from '../store/schema.js';
import { onKeyChanged } from '../store/key-changes.js';
import { findKeyByHash, type KeyRecord } from '../store/keys.js';
import { equalSecrets } from '../store/secrets.js';

const MAX_ENTRIES = 10_000;

export interface KeyCacheOptions {
  /** The most known, and the most unknown, hashes kept (each). */
  maxEntries?: number;
  /** The clock entries lapse by (ms); `Date.now` unless a test sets it. */
  now?: () => number;
}

export class KeyCache {
  readonly #db: Db;
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #now: () => number;
  /** Known keys by hash, oldest first (a refreshed entry moves to the end). */
  readonly #known = new Map<string, { record: KeyRecord; until: number }>();
  /** Hashes of no key, with when each lapses, oldest first. */
  readonly #unknown = new Map<string, number>();
  /** Bumped by every forget, so that a lookup which started before a revocation cannot cache its stale result. */
  #generation = 0;

  /** Stops listening for key changes. */
  readonly close: () => void;

  constructor(db: Db, ttlMs: number, options: KeyCacheOptions = {}) {
    this.#db = db;
    this.#ttlMs = ttlMs;
    this.#maxEntries = options.maxEntries ?? MAX_ENTRIES;
    this.#now = options.now ?? Date.now;
    this.close = onKeyChanged((id) => this.forget(id));
  }

  /**
   * The key whose secret has this SHA-256, or undefined when there is none: at once from memory, else with
   * a promise of the store's answer.
   */
  get(hash: string): KeyRecord | undefined | Promise<KeyRecord | undefined> {
    const now = this.#now();
    const known = this.#known.get(hash);
    if (known !== undefined && known.until > now) return known.record;
    const unknownUntil = this.#unknown.get(hash);
    if (unknownUntil !== undefined && unknownUntil > now) return undefined;
    return this.#lookUp(hash, now);
  }

  async #lookUp(hash: string, now: number): Promise<KeyRecord | undefined> {
    const generation = this.#generation;
    const found = await findKeyByHash(this.#db, hash);
    if (generation !== this.#generation) return withoutHash(await findKeyByHash(this.#db, hash), hash);
    const record = unchangedOr(this.#known.get(hash)?.record, withoutHash(found, hash));
    const until = now + this.#ttlMs;
    // Deleted first, so that a refreshed entry counts as the newest.
    this.#known.delete(hash);
    this.#unknown.delete(hash);
    if (record) keep(this.#known, hash, { record, until }, this.#maxEntries);
    else keep(this.#unknown, hash, until, this.#maxEntries);
    return record;
  }

  /** How many hashes are cached, known and unknown. */
  get size(): { known: number; unknown: number } {
    return { known: this.#known.size, unknown: this.#unknown.size };
  }

  /** Forgets a key at once, after it was revoked, rotated or expired. */
  forget(id: string): void {
    this.#generation++;
    for (const [hash, entry] of this.#known) if (entry.record.id === id) this.#known.delete(hash);
  }
}

/**
 * The record as calls see it: the hash it was found by stays with the store. Every call with the key is
 * handed this one record, so it is frozen: no call can change what the next one sees.
 */
function withoutHash(found: (KeyRecord & { hash: string }) | undefined, hash: string): KeyRecord | undefined {
  // The stored hash is compared with the one looked up by, in constant time (docs/contract.md § Keys), once
  // per lookup in the store; cached calls are then served by the hash alone.
  if (!found || !equalSecrets(found.hash, hash)) return undefined;
  const { hash: _hash, ...record } = found;
  if (Array.isArray(record.entities)) Object.freeze(record.entities);
  Object.freeze(record.scopes);
  return Object.freeze(record);
}

/**
 * The record a refresh found, or the one it replaces when nothing in it changed: what calls keep for a key
 * (its rate-limit policies, stages/rate-limit.ts) is kept by its record, and would otherwise be made again
 * every time the entry lapses.
 */
function unchangedOr(before: KeyRecord | undefined, found: KeyRecord | undefined): KeyRecord | undefined {
  return before && found && JSON.stringify(before) === JSON.stringify(found) ? before : found;
}

/** Adds an entry, dropping the oldest when the map is full. */
function keep<V>(entries: Map<string, V>, hash: string, value: V, max: number): void {
  if (entries.size >= max) entries.delete(entries.keys().next().value!);
  entries.set(hash, value);
}
