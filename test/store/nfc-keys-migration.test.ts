/**
 * Migration 0020_storage_nfc_keys on SQLite and PostgreSQL, over objects stored before keys were normalised:
 * a key in another Unicode form is renamed to its NFC form; where an object already has that name, the later
 * write wins and the earlier is deleted, its bytes released and taken off its partition's usage; pending
 * uploads get the NFC form of their key; keys already in NFC are left as they are.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { migrationSet } from '../../src/store/migration-set.js';
import { shippedMigrations } from '../../src/server/shipped.js';
import { defineDecimalFunctions } from '../../src/store/sqlite/decimal-functions.worker.mjs';
import type { Database } from '../../src/store/schema.js';
import type { StorageObjectTable } from '../../src/faces/storage/tables.js';
import { createTestDatabase } from '../helpers/postgres.js';

/** The migrations of a store that serves the shipped catalogue: the core's and the modules'. */
const SHIPPED = migrationSet(shippedMigrations());

const NFC = 'caf\u00e9/r\u00e9sum\u00e9.pdf';
const NFD = NFC.normalize('NFD');
const ONLY_NFD = 'nai\u0308ve.txt';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A store of each kind, opened without migrating, so the test decides up to where. */
const stores = [
  {
    name: 'SQLite',
    async open(): Promise<Kysely<Database>> {
      const dir = mkdtempSync(join(tmpdir(), 'dispatch-nfc-'));
      const sqlite = new SQLite(join(dir, 'store.sqlite'));
      // The SQL functions every connection of the store defines, which migration 0018 uses.
      defineDecimalFunctions(sqlite);
      const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
      cleanups.push(async () => {
        await db.destroy();
        rmSync(dir, { recursive: true, force: true });
      });
      return db;
    },
  },
  {
    name: 'PostgreSQL',
    async open(): Promise<Kysely<Database>> {
      const database = await createTestDatabase();
      const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database.url }) }) });
      cleanups.push(async () => {
        await db.destroy();
        await database.drop();
      });
      return db;
    },
  },
];

describe.each(stores)('migration 0020_storage_nfc_keys on $name', (store) => {
  it('renames keys to NFC, keeps the later of two objects that become one, and releases the other', async () => {
    const db = await store.open();
    const migrator = new Migrator({ db, provider: SHIPPED.provider });
    const before = await migrator.migrateTo('0019_login_throttle');
    expect(before.error).toBeUndefined();

    const object = (entity: string, key: string, sha256: string, size: number, createdAt: string): StorageObjectTable => ({
      mode: 'test',
      entity_id: entity,
      key,
      sha256,
      md5: 'm',
      size,
      content_type: 'application/pdf',
      metadata: '{}',
      created_at: createdAt,
    });
    const blob = (sha256: string, size: number, refs: number) => ({ sha256, md5: 'm', size, refs, released_at: null, created_at: '2030-01-01T00:00:00.000Z' });
    await db
      .insertInto('storage_objects')
      .values([
        // The same name twice in acme (the NFD one written later), once in NFD only, and once in globex.
        object('acme', NFC, 'a'.repeat(64), 100, '2030-01-01T00:00:00.000Z'),
        object('acme', NFD, 'b'.repeat(64), 30, '2030-01-02T00:00:00.000Z'),
        object('acme', ONLY_NFD, 'c'.repeat(64), 5, '2030-01-01T00:00:00.000Z'),
        object('globex', NFC, 'c'.repeat(64), 5, '2030-01-01T00:00:00.000Z'),
      ])
      .execute();
    await db.insertInto('storage_blobs').values([blob('a'.repeat(64), 100, 1), blob('b'.repeat(64), 30, 1), blob('c'.repeat(64), 5, 2)]).execute();
    await db
      .insertInto('storage_usage')
      .values([
        { mode: 'test', entity_id: 'acme', bytes: 135, objects: 3, accrued_at: null },
        { mode: 'test', entity_id: 'globex', bytes: 5, objects: 1, accrued_at: null },
      ])
      .execute();
    const upload = { mode: 'test' as const, entity_id: 'acme', size: 1, content_type: 'text/plain', metadata: '{}', tier: 'free', api_version: '2026-09-01', expires_at: '2030-01-01T01:00:00.000Z', created_at: '2030-01-01T00:00:00.000Z' };
    await db.insertInto('storage_uploads').values([{ ...upload, id: 'upl_1', key: NFD }, { ...upload, id: 'upl_2', key: 'plain.txt' }]).execute();

    const after = await migrator.migrateToLatest();
    expect(after.error).toBeUndefined();

    const objects = await db.selectFrom('storage_objects').select(['entity_id', 'key', 'sha256']).orderBy('entity_id').orderBy('key').execute();
    expect(objects).toEqual([
      { entity_id: 'acme', key: NFC, sha256: 'b'.repeat(64) },
      { entity_id: 'acme', key: ONLY_NFD.normalize('NFC'), sha256: 'c'.repeat(64) },
      { entity_id: 'globex', key: NFC, sha256: 'c'.repeat(64) },
    ]);
    const usage = await db.selectFrom('storage_usage').select(['entity_id', 'bytes', 'objects']).orderBy('entity_id').execute();
    expect(usage.map((u) => [u.entity_id, Number(u.bytes), u.objects])).toEqual([
      ['acme', 35, 2],
      ['globex', 5, 1],
    ]);
    const blobs = await db.selectFrom('storage_blobs').select(['sha256', 'refs', 'released_at']).orderBy('sha256').execute();
    expect(blobs).toEqual([
      { sha256: 'a'.repeat(64), refs: 0, released_at: expect.any(String) },
      { sha256: 'b'.repeat(64), refs: 1, released_at: null },
      { sha256: 'c'.repeat(64), refs: 2, released_at: null },
    ]);
    const uploads = await db.selectFrom('storage_uploads').select(['id', 'key']).orderBy('id').execute();
    expect(uploads).toEqual([
      { id: 'upl_1', key: NFC },
      { id: 'upl_2', key: 'plain.txt' },
    ]);
  });
});
