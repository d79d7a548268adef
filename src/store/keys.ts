/**
 * API key records: issued with a random secret of which only the SHA-256 is stored, looked up by that
 * hash, listed newest first, revoked and expired by time stamps.
 */
import { newId, randomBase62, sha256 } from './secrets.js';
import { isoInstant } from './instant.js';
import { notifyKeyChanged } from './key-changes.js';
import { afterCommit } from './transaction.js';
import type { ApiKeyTable, Db, Mode } from './schema.js';

export type Entities = '*' | string[];

export interface KeyRecord {
  id: string;
  mode: Mode;
  name: string;
  prefix: string;
  last4: string;
  scopes: string[];
  entities: Entities;
  tier: string;
  apiVersion?: string;
  createdAt: string;
  expiresAt?: string;
  revokedAt?: string;
}

export interface NewKey {
  mode: Mode;
  name?: string;
  scopes: string[];
  entities: Entities;
  tier: string;
  apiVersion?: string;
  expiresAt?: string;
}

/** `sk_live_` or `sk_test_` followed by at least 32 base62 characters. */
export const KEY_PATTERN = /^sk_(live|test)_[0-9A-Za-z]{32,}$/;
const SECRET_LENGTH = 40;

export async function createKey(db: Db, input: NewKey): Promise<{ record: KeyRecord; secret: string }> {
  const secret = `sk_${input.mode}_${randomBase62(SECRET_LENGTH)}`;
  const row: ApiKeyTable = {
    id: newId('key'),
    mode: input.mode,
    hash: sha256(secret),
    name: input.name ?? '',
    prefix: secret.slice(0, 12),
    last4: secret.slice(-4),
    scopes: JSON.stringify(input.scopes),
    entities: JSON.stringify(input.entities),
    tier: input.tier,
    api_version: input.apiVersion ?? null,
    created_at: new Date().toISOString(),
    expires_at: input.expiresAt ? isoInstant(input.expiresAt) : null,
    revoked_at: null,
  };
  await db.insertInto('api_keys').values(row).execute();
  return { record: toRecord(row), secret };
}

export async function findKeyByHash(db: Db, hash: string): Promise<(KeyRecord & { hash: string }) | undefined> {
  const row = await db.selectFrom('api_keys').selectAll().where('hash', '=', hash).executeTakeFirst();
  return row && { ...toRecord(row), hash: row.hash };
}

export async function getKey(db: Db, mode: Mode, id: string): Promise<KeyRecord | undefined> {
  const row = await db.selectFrom('api_keys').selectAll().where('mode', '=', mode).where('id', '=', id).executeTakeFirst();
  return row && toRecord(row);
}

export interface KeyQuery {
  mode?: Mode;
  includeRevoked: boolean;
  /** Ids sort by creation time, so paging by id is paging by age. */
  startingAfter?: string;
}

/** Keys newest first; the caller filters and pages. */
export async function listKeys(db: Db, query: KeyQuery): Promise<KeyRecord[]> {
  let q = db.selectFrom('api_keys').selectAll().orderBy('id', 'desc');
  if (query.mode) q = q.where('mode', '=', query.mode);
  if (!query.includeRevoked) q = q.where('revoked_at', 'is', null);
  if (query.startingAfter) q = q.where('id', '<', query.startingAfter);
  return (await q.execute()).map(toRecord);
}

/** Number of keys in the store, every mode and state included. */
export async function countKeys(db: Db): Promise<number> {
  // PostgreSQL counts in bigint, which pg hands over as a string; SQLite gives a number.
  const row = await db.selectFrom('api_keys').select((eb) => eb.fn.countAll<string | number | bigint>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Sets `revoked_at` unless the key is already revoked; returns the record as it now stands. */
export async function revokeKey(db: Db, mode: Mode, id: string, at = new Date()): Promise<KeyRecord | undefined> {
  await db.updateTable('api_keys').set({ revoked_at: at.toISOString() }).where('mode', '=', mode).where('id', '=', id).where('revoked_at', 'is', null).execute();
  afterCommit(db, () => notifyKeyChanged(id));
  return getKey(db, mode, id);
}

/** Moves the expiry of a key earlier (never later). */
export async function expireKey(db: Db, mode: Mode, id: string, at: Date): Promise<KeyRecord | undefined> {
  const iso = at.toISOString();
  await db
    .updateTable('api_keys')
    .set({ expires_at: iso })
    .where('mode', '=', mode)
    .where('id', '=', id)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', iso)]))
    .execute();
  afterCommit(db, () => notifyKeyChanged(id));
  return getKey(db, mode, id);
}

function toRecord(row: ApiKeyTable): KeyRecord {
  return {
    id: row.id,
    mode: row.mode,
    name: row.name,
    prefix: row.prefix,
    last4: row.last4,
    scopes: JSON.parse(row.scopes) as string[],
    entities: JSON.parse(row.entities) as Entities,
    tier: row.tier,
    ...(row.api_version ? { apiVersion: row.api_version } : {}),
    createdAt: row.created_at,
    ...(row.expires_at ? { expiresAt: row.expires_at } : {}),
    ...(row.revoked_at ? { revokedAt: row.revoked_at } : {}),
  };
}
