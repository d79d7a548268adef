/**
 * The generator's memo: what it computed from a key (one face's model, an unformatted file) kept across
 * runs in one file under `node_modules/.cache/unified-dispatch/`, so a run redoes only the work its changed
 * inputs touch. Every key is hashed together with the generator's fingerprint (see fingerprint.ts), so a
 * changed generator, template or formatter never reuses text it would now print differently.
 *
 * The memo is off unless a command opens it (`generate`, `check`, watch); `check --full` and library
 * callers such as the tests compute everything. Entries are content-addressed, so a stale or foreign
 * cache file can only miss, never mislead. Some work is kept in the process's memory alone (memoInProcess):
 * what a watch's next run would otherwise redo, but is not worth its room in the file.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256 } from '../hash.js';

const FILE = 'memo.json';

interface OpenCache {
  dir: string;
  fingerprint: string;
  /** Entries read from disk. */
  stored: Map<string, unknown>;
  /** Entries used by the runs since the last save: what the next save keeps. */
  used: Map<string, unknown>;
  /** Entries kept in memory alone (memoInProcess) that the last run used, and those this run has used so far. */
  kept: Map<string, unknown>;
  keptUsed: Map<string, unknown>;
  hits: number;
  misses: number;
}

let cache: OpenCache | undefined;

/** Where the memo and check's record live: `DISPATCH_CACHE_DIR`, or beside the installed packages. */
export const cacheDir = () => process.env.DISPATCH_CACHE_DIR ?? join(process.cwd(), 'node_modules', '.cache', 'unified-dispatch');

/**
 * Opens the memo in `dir` for a run of the generator whose fingerprint (taken as the run starts) is
 * `fingerprint`, or keeps it open from the previous run of a watch.
 */
export function openCache(fingerprint: string, dir = cacheDir()): void {
  if (cache?.dir === dir) {
    Object.assign(cache, { fingerprint, hits: 0, misses: 0 });
    // What the last run kept in memory is what this one may find there; a run that kept nothing (it failed
    // before emitting) leaves the run before it in place.
    if (cache.keptUsed.size > 0) Object.assign(cache, { kept: cache.keptUsed, keptUsed: new Map() });
    return;
  }
  let stored = new Map<string, unknown>();
  try {
    stored = new Map(Object.entries(JSON.parse(readFileSync(join(dir, FILE), 'utf8')) as Record<string, unknown>));
  } catch {
    // No cache yet, or one cut short: start empty.
  }
  cache = { dir, fingerprint, stored, used: new Map(), kept: new Map(), keptUsed: new Map(), hits: 0, misses: 0 };
}

export function closeCache(): void {
  cache = undefined;
}

/** True when a command opened the memo: what a run keeps for the next is kept only then (see memoInProcess). */
export const memoIsOpen = () => cache !== undefined;

/** True when no lookup can hit: the memo is off, or holds nothing yet (a first run, a fresh clone). */
export const memoIsEmpty = () => !cache || (cache.stored.size === 0 && cache.used.size === 0);

/** How many lookups since the memo was opened found their entry, and how many computed it. */
export const memoStats = () => ({ hits: cache?.hits ?? 0, misses: cache?.misses ?? 0 });

/**
 * Writes the entries the runs since the last save used, and only those, so the file holds the work of the
 * catalogue as those runs saw it, however long a watch runs (it saves once its edits pause). A run that failed
 * (a face with an error) saves nothing, so the run after the fix still finds the rest of the catalogue.
 */
export function saveCache(): void {
  // Nothing used since the last save: the file already holds what the last runs used.
  if (!cache || cache.used.size === 0) return;
  writeCacheFile(cache.dir, FILE, JSON.stringify(Object.fromEntries(cache.used)));
  cache.stored = cache.used;
  cache.used = new Map();
}

/**
 * Writes a file of the cache directory whole: to a temporary file of this process, renamed into place, so
 * that another process reading it sees the old text or the new one, never half of it.
 */
export function writeCacheFile(dir: string, name: string, text: string): void {
  mkdirSync(dir, { recursive: true });
  const temporary = join(dir, `${name}.${process.pid}.tmp`);
  writeFileSync(temporary, text);
  renameSync(temporary, join(dir, name));
}

/** The value for `key` computed by `compute`, from the memo when an earlier run computed it. */
export function memo<T>(kind: string, key: unknown, compute: () => T): T {
  if (!cache) return compute();
  const open = cache;
  const hash = entryHash(open, kind, key);
  return remember(open, hash, lookup(open, hash) ?? compute());
}

export async function memoAsync<T>(kind: string, key: unknown, compute: () => Promise<T>): Promise<T> {
  if (!cache) return compute();
  const open = cache;
  const hash = entryHash(open, kind, key);
  return remember(open, hash, lookup(open, hash) ?? (await compute()));
}

/**
 * The value for `key` computed by `compute`, from memory when the last run of this process computed it: for
 * work a watch would otherwise redo on every run (printing the chunks of the faces that did not change) that
 * costs less than its entry in the memo file would to read and write. Never saved; counted in neither hits nor
 * misses, which are the file's.
 */
export function memoInProcess<T>(kind: string, key: unknown, compute: () => T): T {
  if (!cache) return compute();
  const open = cache;
  const hash = entryHash(open, kind, key);
  const value = open.keptUsed.get(hash) ?? open.kept.get(hash) ?? compute();
  open.keptUsed.set(hash, value);
  return value as T;
}

function lookup(open: OpenCache, hash: string): unknown {
  const found = open.used.get(hash) ?? open.stored.get(hash);
  if (found === undefined) open.misses++;
  else open.hits++;
  return found;
}

function remember<T>(open: OpenCache, hash: string, value: unknown): T {
  open.used.set(hash, value);
  return value as T;
}

/**
 * An entry's hash: of the generator's fingerprint, the kind, and the key's text. A string key is its own text
 * (its caller spells it); an object key is spelled member by member (membersText), anything else by keyText.
 */
function entryHash(open: OpenCache, kind: string, key: unknown): string {
  const text = typeof key === 'string' ? key : isRecord(key) ? membersText(key) : keyText(key);
  return sha256(`${open.fingerprint}\0${kind}\0${text}`);
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * A key object's text with each member that is itself an object spelled by its digest: a face is part of
 * many keys in a run (its changelog at every version, its page, its lint), and is hashed once for them all.
 */
function membersText(key: Record<string, unknown>): string {
  return objectText(key, (item) => (item !== null && typeof item === 'object' ? `"\u0000digest:${digest(item)}"` : keyText(item)));
}

const digests = new WeakMap<object, string>();

/** The hash of an object's key text, kept for the object (which, as keyText says, never changes). */
function digest(value: object): string {
  let found = digests.get(value);
  if (found === undefined) digests.set(value, (found = sha256(keyText(value))));
  return found;
}

/**
 * The key's text: JSON, with the numbers JSON cannot spell (Infinity, NaN, which YAML can) tagged, so that
 * two keys that differ only there never share an entry; lint keys its shared
 * compilations by it too. An object met again (a face is part of several keys in one run) is spelled once: the
 * catalogue's models are never changed after they are built, so its text cannot go stale.
 */
const spelled = new WeakMap<object, string>();

export function keyText(value: unknown): string {
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : `"\u0000number:${value}"`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  const known = spelled.get(value);
  if (known !== undefined) return known;
  const text = Array.isArray(value) ? `[${value.map((item) => (item === undefined ? 'null' : keyText(item))).join(',')}]` : objectText(value, keyText);
  spelled.set(value, text);
  return text;
}

/** An object's members as JSON spells them (none undefined, no functions), each value by `spell`. */
function objectText(value: object, spell: (item: unknown) => string): string {
  const members = Object.entries(value).filter(([, item]) => item !== undefined && typeof item !== 'function');
  return `{${members.map(([name, item]) => `${JSON.stringify(name)}:${spell(item)}`).join(',')}}`;
}
