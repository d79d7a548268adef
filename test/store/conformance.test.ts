/**
 * Store conformance: every store implementation (SQLite, PostgreSQL) runs the same typed queries and must
 * pass the same tests — migrations, API keys, auth users and sessions, idempotency records, including
 * claims racing each other over two connections.
 */
import { Migrator, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Partition } from '../../src/store/partition.js';
import { endSession, findOpenSession, findUserByEmail, insertUser, openSession, setUserDisabled } from '../../src/faces/auth/store.js';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  purgeExpiredIdempotency,
  releaseIdempotencyKey,
  type IdempotencyClaim,
} from '../../src/store/idempotency.js';
import { countKeys, createKey, expireKey, findKeyByHash, getKey, KEY_PATTERN, listKeys, revokeKey } from '../../src/store/keys.js';
import { migrationSet } from '../../src/store/migration-set.js';
import { shippedMigrations, openShippedStore } from '../../src/server/shipped.js';
import type { Db } from '../../src/store/schema.js';
import { newId, sha256 } from '../../src/store/secrets.js';
import { implementations, type StoreLocation } from './implementations.js';

/** The migrations of a store that serves the shipped catalogue: the core's and the modules'. */
const SHIPPED = migrationSet(shippedMigrations());

// Every migration the store ships, in the order they run: a migration added for a new face is checked
// here without editing this file.
const MIGRATIONS = Object.keys(await SHIPPED.provider.getMigrations()).sort();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const unique = (prefix: string) => `${prefix}_${newId('t')}`;

async function appliedMigrations(db: Db): Promise<string[]> {
  const rows = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
  return rows.rows.map((r) => r.name);
}

describe.each(implementations)('store on $name', (impl) => {
  let location: StoreLocation;
  let db: Db;
  /** A second, independent connection to the same store, as another process would have. */
  let other: Db;

  beforeAll(async () => {
    location = await impl.create();
    db = await openShippedStore(location.config);
    other = await openShippedStore(location.config);
  });

  afterAll(async () => {
    await other?.destroy();
    await db?.destroy();
    await location?.remove();
  });

  describe('migrations', () => {
    it('applies every migration once, and a second open applies nothing', async () => {
      expect(await appliedMigrations(db)).toEqual(MIGRATIONS);
      const again = await new Migrator({ db: other, provider: SHIPPED.provider }).migrateToLatest();
      expect(again.error).toBeUndefined();
      expect(again.results).toEqual([]);
      expect(await appliedMigrations(other)).toEqual(MIGRATIONS);
    });

    it('refuses a store that a newer program migrated further, rather than serve it', async () => {
      const newer = await impl.create();
      try {
        const store = await openShippedStore(newer.config);
        await sql`insert into kysely_migration (name, timestamp) values (${'9999_from_a_newer_program'}, ${new Date().toISOString()})`.execute(store);
        await store.destroy();
        await expect(openShippedStore(newer.config)).rejects.toThrow(/The store has run migration 9999_from_a_newer_program, which this program does not have/);
      } finally {
        await newer.remove();
      }
    });

    it('numbers its migrations 0001, 0002, ... without a gap, so none was renamed or removed', () => {
      expect(MIGRATIONS.length).toBeGreaterThanOrEqual(16);
      MIGRATIONS.forEach((name, i) => expect(name).toMatch(new RegExp(`^${String(i + 1).padStart(4, '0')}_[a-z_]+$`)));
    });

    it('shows data written through one connection to the other', async () => {
      const { record } = await createKey(db, { mode: 'test', scopes: ['*'], entities: '*', tier: 'free' });
      expect((await getKey(other, 'test', record.id))?.id).toBe(record.id);
    });

    it.skipIf(!impl.shared)('applies each migration once when several processes start together on an empty store', async () => {
      const fresh = await impl.create();
      try {
        const opened = await Promise.allSettled(Array.from({ length: 4 }, () => openShippedStore(fresh.config)));
        const stores = opened.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
        try {
          expect(opened.filter((o) => o.status === 'rejected')).toEqual([]);
          expect(await appliedMigrations(stores[0]!)).toEqual(MIGRATIONS);
          for (const store of stores) expect(await countKeys(store)).toBe(0);
        } finally {
          await Promise.all(stores.map((s) => s.destroy()));
        }
      } finally {
        await fresh.remove();
      }
    });
  });

  describe('keys', () => {
    it('creates a key, stores only its hash and finds it by that hash', async () => {
      const { record, secret } = await createKey(db, {
        mode: 'live',
        name: 'billing',
        scopes: ['keys:read', 'ai:*'],
        entities: ['acme', 'globex'],
        tier: 'pro',
        apiVersion: '2025-01-01',
      });
      expect(secret).toMatch(KEY_PATTERN);
      expect(secret.startsWith('sk_live_')).toBe(true);
      expect(record).toMatchObject({ mode: 'live', name: 'billing', scopes: ['keys:read', 'ai:*'], entities: ['acme', 'globex'], tier: 'pro', apiVersion: '2025-01-01' });
      expect(record.prefix).toBe(secret.slice(0, 12));
      expect(record.last4).toBe(secret.slice(-4));

      const found = await findKeyByHash(db, sha256(secret));
      expect(found).toEqual({ ...record, hash: sha256(secret) });
      expect(await findKeyByHash(db, sha256(`${secret}x`))).toBeUndefined();
      const stored = await db.selectFrom('api_keys').select('hash').where('id', '=', record.id).executeTakeFirstOrThrow();
      expect(stored.hash).not.toContain(secret.slice(8));
    });

    it('gets a key only in its own mode', async () => {
      const { record } = await createKey(db, { mode: 'live', scopes: [], entities: '*', tier: 'free' });
      expect((await getKey(db, 'live', record.id))?.entities).toBe('*');
      expect(await getKey(db, 'test', record.id)).toBeUndefined();
    });

    it('lists keys newest first and pages by id', async () => {
      const made: string[] = [];
      for (let i = 0; i < 3; i++) {
        made.push((await createKey(db, { mode: 'test', name: `page-${i}`, scopes: [], entities: '*', tier: 'free' })).record.id);
        await sleep(3); // ids sort by millisecond: keep the three apart
      }
      const [oldest, middle, newest] = made as [string, string, string];
      const ours = (ids: string[]) => ids.filter((id) => made.includes(id));

      const all = (await listKeys(db, { mode: 'test', includeRevoked: true })).map((k) => k.id);
      expect(ours(all)).toEqual([newest, middle, oldest]);
      expect(all).toEqual([...all].sort().reverse());

      expect(ours((await listKeys(db, { mode: 'test', includeRevoked: true, startingAfter: newest })).map((k) => k.id))).toEqual([middle, oldest]);
      expect(ours((await listKeys(db, { mode: 'test', includeRevoked: true, startingAfter: middle })).map((k) => k.id))).toEqual([oldest]);
      expect(ours((await listKeys(db, { mode: 'live', includeRevoked: true })).map((k) => k.id))).toEqual([]);
    });

    it('revokes a key once and hides it from the default list', async () => {
      const { record } = await createKey(db, { mode: 'test', scopes: [], entities: '*', tier: 'free' });
      const first = new Date('2031-01-01T00:00:00.000Z');
      expect((await revokeKey(db, 'test', record.id, first))?.revokedAt).toBe(first.toISOString());
      expect((await revokeKey(db, 'test', record.id, new Date('2032-01-01T00:00:00.000Z')))?.revokedAt).toBe(first.toISOString());
      expect(await revokeKey(db, 'live', record.id)).toBeUndefined();

      expect((await listKeys(db, { mode: 'test', includeRevoked: false })).map((k) => k.id)).not.toContain(record.id);
      expect((await listKeys(db, { mode: 'test', includeRevoked: true })).map((k) => k.id)).toContain(record.id);
    });

    it('moves an expiry earlier, never later', async () => {
      const { record } = await createKey(db, { mode: 'test', scopes: [], entities: '*', tier: 'free' });
      expect(record.expiresAt).toBeUndefined();
      const at = (iso: string) => new Date(iso);
      expect((await expireKey(db, 'test', record.id, at('2031-06-01T00:00:00.000Z')))?.expiresAt).toBe('2031-06-01T00:00:00.000Z');
      expect((await expireKey(db, 'test', record.id, at('2031-07-01T00:00:00.000Z')))?.expiresAt).toBe('2031-06-01T00:00:00.000Z');
      expect((await expireKey(db, 'test', record.id, at('2031-05-01T00:00:00.000Z')))?.expiresAt).toBe('2031-05-01T00:00:00.000Z');
    });

    it('counts keys as a number', async () => {
      const before = await countKeys(db);
      expect(typeof before).toBe('number');
      await createKey(db, { mode: 'live', scopes: [], entities: '*', tier: 'free' });
      await createKey(db, { mode: 'test', scopes: [], entities: '*', tier: 'free' });
      expect(await countKeys(db)).toBe(before + 2);
      expect(await countKeys(other)).toBe(before + 2);
    });
  });

  describe('auth users and sessions', () => {
    const user = (p: Partition, email: string) => ({
      id: newId('usr'),
      mode: p.mode,
      entity_id: p.entityId,
      email,
      name: null,
      password_hash: 'scrypt$x',
      created_at: '2030-01-01T00:00:00.000Z',
      disabled_at: null,
    });

    it('takes an e-mail address once per (mode, entity)', async () => {
      const entityId = unique('ent');
      const home: Partition = { mode: 'test', entityId };
      const first = user(home, 'ada@example.com');
      expect(await insertUser(db, first)).toBe(true);
      expect(await insertUser(db, user(home, 'ada@example.com'))).toBe(false);
      expect(await insertUser(other, user(home, 'ada@example.com'))).toBe(false);
      expect(await insertUser(db, user({ mode: 'test', entityId: unique('ent') }, 'ada@example.com'))).toBe(true);
      expect(await insertUser(db, user({ mode: 'live', entityId }, 'ada@example.com'))).toBe(true);

      expect((await findUserByEmail(db, home, 'ada@example.com'))?.id).toBe(first.id);
      expect(await findUserByEmail(db, home, 'bob@example.com')).toBeUndefined();
    });

    it('opens, finds and ends a session once', async () => {
      const p: Partition = { mode: 'live', entityId: unique('ent') };
      const u = user(p, 'grace@example.com');
      expect(await insertUser(db, u)).toBe(true);
      const tokenHash = sha256(unique('token'));
      const session = {
        id: newId('ses'),
        mode: p.mode,
        entity_id: p.entityId,
        user_id: u.id,
        token_hash: tokenHash,
        created_at: '2030-01-01T00:00:00.000Z',
        expires_at: '2030-01-02T00:00:00.000Z',
        ended_at: null,
      };
      // Not for a disabled user, nor for a user of another partition.
      expect(await setUserDisabled(db, p, u.id, '2030-01-01T00:00:00.000Z')).toBe(true);
      expect(await openSession(db, session)).toBe(false);
      expect(await setUserDisabled(db, p, u.id, null)).toBe(true);
      expect(await openSession(db, { ...session, entity_id: unique('ent') })).toBe(false);
      expect(await openSession(db, session)).toBe(true);
      const noon = '2030-01-01T12:00:00.000Z';
      expect(await findOpenSession(db, p, tokenHash, noon)).toMatchObject({ id: u.id, email: 'grace@example.com', expiresAt: '2030-01-02T00:00:00.000Z' });
      expect(await findOpenSession(db, { ...p, mode: 'test' }, tokenHash, noon)).toBeUndefined();
      expect(await findOpenSession(db, p, tokenHash, '2030-01-02T00:00:00.000Z')).toBeUndefined();

      expect(await endSession(db, p, tokenHash, noon)).toBe(true);
      expect(await endSession(other, p, tokenHash, noon)).toBe(false);
      expect(await findOpenSession(db, p, tokenHash, noon)).toBeUndefined();
    });

    it('does not end an expired session', async () => {
      const p: Partition = { mode: 'test', entityId: unique('ent') };
      const u = user(p, 'lin@example.com');
      await insertUser(db, u);
      const tokenHash = sha256(unique('token'));
      await openSession(db, { id: newId('ses'), mode: p.mode, entity_id: p.entityId, user_id: u.id, token_hash: tokenHash, created_at: '2030-01-01T00:00:00.000Z', expires_at: '2030-01-01T01:00:00.000Z', ended_at: null });
      expect(await endSession(db, p, tokenHash, '2030-01-01T02:00:00.000Z')).toBe(false);
    });
  });

  describe('idempotency records', () => {
    // Every record here expires in 2030 or later, except in the purge test, which owns the years before.
    const T0 = Date.parse('2030-01-01T00:00:00.000Z');
    const iso = (offsetSeconds: number) => new Date(T0 + offsetSeconds * 1000).toISOString();
    const claimOf = (scope: string, key: string, fingerprint: string, now = 0, ttl = 60, lease = 30): IdempotencyClaim => ({
      scope,
      key,
      fingerprint,
      now: iso(now),
      expiresAt: iso(now + ttl),
      leaseUntil: iso(now + lease),
    });

    it('claims a key once; a second claim finds it running', async () => {
      const scope = unique('key_a:test:acme');
      expect(await claimIdempotencyKey(db, claimOf(scope, 'k1', 'fp-1'))).toEqual({ claimed: true, since: iso(0) });
      const second = await claimIdempotencyKey(other, claimOf(scope, 'k1', 'fp-2', 5));
      expect(second).toEqual({
        claimed: false,
        record: { fingerprint: 'fp-1', state: 'running', status: null, body: null, headers: null, createdAt: iso(0), expiresAt: iso(60) },
      });
      expect(await claimIdempotencyKey(db, claimOf(`${scope}:other`, 'k1', 'fp-1'))).toEqual({ claimed: true, since: iso(0) });
      expect(await claimIdempotencyKey(db, claimOf(scope, 'k2', 'fp-1'))).toEqual({ claimed: true, since: iso(0) });
    });

    it('claims the keys of many requests at once, each once, the first to name a key taking it', async () => {
      const scope = unique('key_t:test:acme');
      // Sent in one turn: inserted by one statement, the repeated key by its first claim only.
      const results = await Promise.all([
        claimIdempotencyKey(db, claimOf(scope, 'k1', 'fp-1')),
        claimIdempotencyKey(db, claimOf(scope, 'k2', 'fp-2')),
        claimIdempotencyKey(db, claimOf(scope, 'k1', 'fp-3')),
      ]);
      expect(results.map((r) => r.claimed)).toEqual([true, true, false]);
      expect(results[2]).toMatchObject({ claimed: false, record: { fingerprint: 'fp-1', state: 'running' } });
      const stored = await db.selectFrom('idempotency_records').select(['key', 'fingerprint']).where('scope', '=', scope).orderBy('key').execute();
      expect(stored).toEqual([
        { key: 'k1', fingerprint: 'fp-1' },
        { key: 'k2', fingerprint: 'fp-2' },
      ]);
    });

    it('claims the same keys from two processes in opposite orders without an error', async () => {
      // Each process claims every key in one turn, one in the reverse order of the other: were the rows
      // inserted in arrival order, each insert could wait on a key the other holds.
      for (let round = 0; round < 10; round++) {
        const scope = unique('key_o:test:acme');
        const keys = Array.from({ length: 300 }, (_, i) => `k${i}`);
        const claims = (store: Db, order: string[], fingerprint: string) => order.map((key) => claimIdempotencyKey(store, claimOf(scope, key, fingerprint)));
        const results = await Promise.all([...claims(db, keys, 'fp-1'), ...claims(other, [...keys].reverse(), 'fp-2')]);
        // Every key is taken exactly once, by one process or the other.
        expect(results.filter((r) => r.claimed)).toHaveLength(keys.length);
      }
    });

    it('fails only the claim whose record the store refuses; the others of its turn are claimed', async () => {
      const scope = unique('key_r:test:acme');
      // Over 500 claims: two statements, the refused record (no fingerprint) in the second.
      const keys = Array.from({ length: 600 }, (_, i) => `k${String(i).padStart(3, '0')}`);
      const results = await Promise.allSettled(
        keys.map((key) => claimIdempotencyKey(db, { ...claimOf(scope, key, 'fp'), fingerprint: key === 'k550' ? (null as never) : 'fp' })),
      );
      const refused = keys.filter((_, i) => results[i]!.status === 'rejected');
      expect(refused).toEqual(['k550']);
      const stored = await db.selectFrom('idempotency_records').select((eb) => eb.fn.countAll<number>().as('n')).where('scope', '=', scope).executeTakeFirstOrThrow();
      expect(Number(stored.n)).toBe(keys.length - 1);
    });

    it('stores a reply once and hands it to later claims', async () => {
      const scope = unique('key_b:live:acme');
      await claimIdempotencyKey(db, claimOf(scope, 'k', 'fp'));
      const reply = { scope, key: 'k', leaseUntil: iso(30), status: 201, body: '{"data":{"id":"x"}}', headers: '{"Content-Type":"application/json"}' };
      expect(await completeIdempotencyKey(db, reply)).toBe(true);
      expect(await completeIdempotencyKey(other, { ...reply, status: 500 })).toBe(false);

      const later = await claimIdempotencyKey(other, claimOf(scope, 'k', 'fp', 10));
      expect(later).toEqual({
        claimed: false,
        record: { fingerprint: 'fp', state: 'done', status: 201, body: reply.body, headers: reply.headers, createdAt: iso(0), expiresAt: iso(60) },
      });
      expect(await completeIdempotencyKey(db, { ...reply, key: 'never-claimed' })).toBe(false);
    });

    it('lets an expired record be claimed again, from the moment it expires', async () => {
      const scope = unique('key_c:test:acme');
      await claimIdempotencyKey(db, claimOf(scope, 'k', 'old', 0, 60));
      await completeIdempotencyKey(db, { scope, key: 'k', leaseUntil: iso(30), status: 200, body: '{}', headers: '{}' });
      expect((await claimIdempotencyKey(db, claimOf(scope, 'k', 'new', 59))).claimed).toBe(false);
      // A new use of the key: it starts at the claim.
      expect(await claimIdempotencyKey(db, claimOf(scope, 'k', 'new', 60))).toEqual({ claimed: true, since: iso(60) });
      const after = await claimIdempotencyKey(other, claimOf(scope, 'k', 'newer', 61));
      expect(after).toEqual({
        claimed: false,
        record: { fingerprint: 'new', state: 'running', status: null, body: null, headers: null, createdAt: iso(60), expiresAt: iso(120) },
      });
    });

    it('lets the same request take over a running claim whose lease lapsed (its owner died), and no other', async () => {
      const scope = unique('key_g:test:acme');
      await claimIdempotencyKey(db, claimOf(scope, 'k', 'fp', 0, 600, 30));
      expect(await claimIdempotencyKey(other, claimOf(scope, 'k', 'fp', 29))).toMatchObject({ claimed: false, record: { state: 'running' } });
      expect(await claimIdempotencyKey(other, claimOf(scope, 'k', 'other-request', 31))).toMatchObject({ claimed: false, record: { fingerprint: 'fp' } });
      // The same use of the key, resumed: it keeps its start (what the first call began is found under it).
      expect(await claimIdempotencyKey(other, claimOf(scope, 'k', 'fp', 30))).toEqual({ claimed: true, since: iso(0) });
      // The new claim holds a lease of its own, and a stored reply is never taken over.
      expect(await claimIdempotencyKey(db, claimOf(scope, 'k', 'fp', 40))).toMatchObject({ claimed: false, record: { state: 'running' } });
      // The first owner, finishing late, can neither store its reply nor release the key: they are the retry's.
      const late = { scope, key: 'k', leaseUntil: iso(30), status: 504, body: '{}', headers: '{}' };
      expect(await completeIdempotencyKey(db, late)).toBe(false);
      expect(await releaseIdempotencyKey(db, late)).toBe(false);
      expect(await completeIdempotencyKey(other, { scope, key: 'k', leaseUntil: iso(60), status: 200, body: '{}', headers: '{}' })).toBe(true);
      expect(await claimIdempotencyKey(db, claimOf(scope, 'k', 'fp', 80))).toMatchObject({ claimed: false, record: { state: 'done' } });
    });

    it('releases a running claim but never a stored reply', async () => {
      const scope = unique('key_d:test:acme');
      const ref = { scope, key: 'k', leaseUntil: iso(30) };
      await claimIdempotencyKey(db, claimOf(scope, 'k', 'fp'));
      expect(await releaseIdempotencyKey(db, ref)).toBe(true);
      expect(await releaseIdempotencyKey(db, ref)).toBe(false);
      expect(await claimIdempotencyKey(db, claimOf(scope, 'k', 'fp'))).toEqual({ claimed: true, since: iso(0) });
      await completeIdempotencyKey(db, { ...ref, status: 200, body: '{}', headers: '{}' });
      expect(await releaseIdempotencyKey(db, ref)).toBe(false);
      expect(await claimIdempotencyKey(db, claimOf(scope, 'k', 'fp', 1))).toMatchObject({ claimed: false, record: { state: 'done' } });
    });

    it('purges expired records only', async () => {
      const scope = unique('key_e:test:acme');
      const claimUntil = (key: string, expiresAt: string) =>
        claimIdempotencyKey(db, { scope, key, fingerprint: 'fp', now: '2020-01-01T00:00:00.000Z', expiresAt, leaseUntil: expiresAt });
      await claimUntil('gone', '2025-05-31T00:00:00.000Z');
      await claimUntil('just-gone', '2025-06-01T00:00:00.000Z');
      await claimUntil('kept', '2025-06-02T00:00:00.000Z');

      expect(await purgeExpiredIdempotency(db, '2025-06-01T00:00:00.000Z')).toBe(2);
      expect(await purgeExpiredIdempotency(other, '2025-06-01T00:00:00.000Z')).toBe(0);
      const keys = await db.selectFrom('idempotency_records').select('key').where('scope', '=', scope).execute();
      expect(keys.map((k) => k.key)).toEqual(['kept']);
    });

    it('gives one of 20 concurrent claims of a key the claim, over two connections', async () => {
      const scope = unique('key_f:test:acme');
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => claimIdempotencyKey(i % 2 ? other : db, claimOf(scope, 'k', `fp-${i}`))),
      );
      const winners = results.flatMap((r, i) => (r.claimed ? [i] : []));
      expect(winners).toHaveLength(1);
      for (const r of results) if (!r.claimed) expect(r.record.fingerprint).toBe(`fp-${winners[0]}`);
    });

    it('gives one of 20 concurrent takeovers of an expired record the claim', async () => {
      const scope = unique('key_g:test:acme');
      await claimIdempotencyKey(db, claimOf(scope, 'k', 'stale', 0, 10));
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => claimIdempotencyKey(i % 2 ? other : db, claimOf(scope, 'k', `fp-${i}`, 30))),
      );
      const winners = results.flatMap((r, i) => (r.claimed ? [i] : []));
      expect(winners).toHaveLength(1);
      for (const r of results) if (!r.claimed) expect(r.record).toMatchObject({ fingerprint: `fp-${winners[0]}`, state: 'running', createdAt: iso(30) });
    });
  });
});
