/**
 * The key cache on a real store: a hash of no key is refused from memory until the cache's time-to-live
 * lapses (then a key made meanwhile, as by another process, is found), a flood of unknown hashes keeps the
 * cache at its bound without pushing out the known keys, a refresh keeps the record of a key nothing changed
 * and takes the new one of a key changed elsewhere, and a revocation here takes effect at once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyCache } from '../../src/server/key-cache.js';
import { openShippedStore } from '../../src/server/shipped.js';
import { createKey, revokeKey } from '../../src/store/keys.js';
import type { Db } from '../../src/store/schema.js';
import { randomBase62, sha256 } from '../../src/store/secrets.js';

const TTL_MS = 2_000;
let dataDir: string;
let db: Db;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'dispatch-key-cache-'));
  db = await openShippedStore({ dataDir });
});
afterAll(async () => {
  await db?.destroy();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A cache whose clock the test moves. */
function cacheAt(options: { maxEntries?: number } = {}) {
  const clock = { now: 1_000_000 };
  const cache = new KeyCache(db, TTL_MS, { ...options, now: () => clock.now });
  return { cache, clock };
}

/** Stores a key under the hash of `secret`, as another process would. */
async function storeKeyFor(secret: string) {
  const { record } = await createKey(db, { mode: 'test', scopes: ['*'], entities: '*', tier: 'free' });
  await db.updateTable('api_keys').set({ hash: sha256(secret) }).where('id', '=', record.id).execute();
  return record;
}

describe('the key cache', () => {
  it('refuses an unknown hash from memory until its time-to-live lapses, then finds a key made meanwhile', async () => {
    const { cache, clock } = cacheAt();
    const secret = `sk_test_${randomBase62(40)}`;
    expect(await cache.get(sha256(secret))).toBeUndefined();
    expect(cache.size).toEqual({ known: 0, unknown: 1 });

    const record = await storeKeyFor(secret);
    clock.now += TTL_MS - 1;
    expect(await cache.get(sha256(secret))).toBeUndefined();
    clock.now += 1;
    expect((await cache.get(sha256(secret)))?.id).toBe(record.id);
    expect(cache.size).toEqual({ known: 1, unknown: 0 });
    cache.close();
  });

  it('keeps at most its bound of unknown hashes, however many are sent, and keeps the known keys', async () => {
    const { cache } = cacheAt({ maxEntries: 50 });
    const secret = `sk_test_${randomBase62(40)}`;
    const record = await storeKeyFor(secret);
    expect((await cache.get(sha256(secret)))?.id).toBe(record.id);
    for (let i = 0; i < 500; i++) expect(await cache.get(sha256(`sk_test_${randomBase62(40)}`))).toBeUndefined();
    expect(cache.size).toEqual({ known: 1, unknown: 50 });
    // Still served from memory: the store no longer has it, the cache does until its entry lapses.
    await db.deleteFrom('api_keys').where('id', '=', record.id).execute();
    expect((await cache.get(sha256(secret)))?.id).toBe(record.id);
    cache.close();
  });

  it('keeps at most its bound of known keys, the oldest going first', async () => {
    const { cache } = cacheAt({ maxEntries: 2 });
    const secrets = [0, 1, 2].map(() => `sk_test_${randomBase62(40)}`);
    for (const secret of secrets) await storeKeyFor(secret);
    for (const secret of secrets) expect(await cache.get(sha256(secret))).toBeDefined();
    expect(cache.size).toEqual({ known: 2, unknown: 0 });
    cache.close();
  });

  it('keeps the record of a key unchanged since its entry lapsed, and takes the new one of a key changed elsewhere', async () => {
    const { cache, clock } = cacheAt();
    const secret = `sk_test_${randomBase62(40)}`;
    const record = await storeKeyFor(secret);
    const first = (await cache.get(sha256(secret)))!;
    clock.now += TTL_MS;
    // Looked up again in the store, and found as it was: the same record, so what calls keep by it stays.
    expect(await cache.get(sha256(secret))).toBe(first);
    // Changed by another process, which this cache hears nothing of: seen once the entry lapses.
    await db.updateTable('api_keys').set({ tier: 'pro' }).where('id', '=', record.id).execute();
    clock.now += TTL_MS;
    const refreshed = (await cache.get(sha256(secret)))!;
    expect(refreshed).not.toBe(first);
    expect([first.tier, refreshed.tier]).toEqual(['free', 'pro']);
    expect(Object.isFrozen(refreshed)).toBe(true);
    cache.close();
  });

  it('forgets a key revoked in this process at once, and hands out records no call can change', async () => {
    const { cache } = cacheAt();
    const secret = `sk_test_${randomBase62(40)}`;
    const record = await storeKeyFor(secret);
    const cached = (await cache.get(sha256(secret)))!;
    expect(Object.isFrozen(cached) && Object.isFrozen(cached.scopes)).toBe(true);
    await revokeKey(db, 'test', record.id);
    expect((await cache.get(sha256(secret)))?.revokedAt).toBeDefined();
    cache.close();
  });
});
