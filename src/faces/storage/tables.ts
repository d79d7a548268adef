/**
 * The storage face's own tables: objects by (mode, entity, key) pointing at content stored once per SHA-256
 * (blobs, reference-counted), each partition's stored bytes (its quota, and since when they were counted),
 * and signed uploads not yet received; declared into the store's `Database` (so every `ctx.db` query types
 * them), with the migrations that made them, under the names stores have recorded.
 */
import { PostgresAdapter, sql, type Kysely } from 'kysely';
import type { ModuleMigration } from '../../core/face-module.js';
import type { Mode } from '../../store/schema.js';

declare module '../../store/schema.js' {
  interface Database {
    storage_objects: StorageObjectTable;
    storage_blobs: StorageBlobTable;
    storage_usage: StorageUsageTable;
    storage_uploads: StorageUploadTable;
  }
}

/** A stored object of the storage face: its key in a partition and the content (blob) it holds. */
export interface StorageObjectTable {
  mode: Mode;
  entity_id: string;
  key: string;
  /** The blob (`storage_blobs`) holding the content. */
  sha256: string;
  md5: string;
  size: number | string;
  content_type: string;
  /** JSON object. */
  metadata: string;
  created_at: string;
}

/** Content stored once, by SHA-256, and how many objects hold it; at zero it is collected after a while. */
export interface StorageBlobTable {
  sha256: string;
  md5: string;
  size: number | string;
  refs: number;
  /** When `refs` last fell to zero; null while referenced. */
  released_at: string | null;
  created_at: string;
}

/** What a partition keeps: the bytes its quota counts, and how many objects. */
export interface StorageUsageTable {
  mode: Mode;
  entity_id: string;
  bytes: number | string;
  objects: number;
  /** Until when its stored bytes have been counted (the storage.storedByteDays meter); null before the first. */
  accrued_at: string | null;
}

/** A signed upload not yet received: what the object will be once its bytes arrive. */
export interface StorageUploadTable {
  /** `upl_…` */
  id: string;
  mode: Mode;
  entity_id: string;
  key: string;
  size: number | string;
  content_type: string;
  /** JSON object. */
  metadata: string;
  /** The tier of the key that asked for the URL: its quota applies when the bytes arrive. */
  tier: string;
  /** The API version of that call, for the event the upload sends. */
  api_version: string;
  expires_at: string;
  created_at: string;
}

export const migrations: readonly ModuleMigration[] = [
  {
    name: '0014_storage',
    // The storage face: objects by (mode, entity, key) pointing at content stored once per SHA-256 (blobs,
    // reference-counted), each partition's stored bytes (its quota), and signed uploads not yet received.
    // Keys list in byte order, S3's: PostgreSQL compares them with the "C" collation, as SQLite does by default.
    async up(db: Kysely<unknown>) {
      const keyType = db.getExecutor().adapter instanceof PostgresAdapter ? sql`text collate "C"` : sql`text`;
      await db.schema
        .createTable('storage_objects')
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('entity_id', 'text', (c) => c.notNull())
        .addColumn('key', keyType, (c) => c.notNull())
        .addColumn('sha256', 'text', (c) => c.notNull())
        .addColumn('md5', 'text', (c) => c.notNull())
        .addColumn('size', 'bigint', (c) => c.notNull())
        .addColumn('content_type', 'text', (c) => c.notNull())
        .addColumn('metadata', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('storage_objects_pkey', ['mode', 'entity_id', 'key'])
        .execute();
      await db.schema
        .createTable('storage_blobs')
        .addColumn('sha256', 'text', (c) => c.primaryKey())
        .addColumn('md5', 'text', (c) => c.notNull())
        .addColumn('size', 'bigint', (c) => c.notNull())
        .addColumn('refs', 'integer', (c) => c.notNull())
        .addColumn('released_at', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('storage_blobs_released').on('storage_blobs').columns(['refs', 'released_at']).execute();
      await db.schema
        .createTable('storage_usage')
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('entity_id', 'text', (c) => c.notNull())
        .addColumn('bytes', 'bigint', (c) => c.notNull())
        .addColumn('objects', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('storage_usage_pkey', ['mode', 'entity_id'])
        .execute();
      await db.schema
        .createTable('storage_uploads')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('entity_id', 'text', (c) => c.notNull())
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('size', 'bigint', (c) => c.notNull())
        .addColumn('content_type', 'text', (c) => c.notNull())
        .addColumn('metadata', 'text', (c) => c.notNull())
        .addColumn('tier', 'text', (c) => c.notNull())
        .addColumn('api_version', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('storage_uploads_expiry').on('storage_uploads').column('expires_at').execute();
    },
  },
  {
    name: '0016_storage_accrual',
    // Stored bytes accrue as a platform meter (storage.storedByteDays) per partition, from the moment the
    // partition's bytes last changed or were last counted.
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('storage_usage').addColumn('accrued_at', 'text').execute();
    },
  },
  {
    name: '0020_storage_nfc_keys',
    // Object keys are kept in Unicode NFC from now on (src/faces/storage/keys.ts), so that one name is one object.
    // Keys stored in another form are renamed to their NFC form; where an object has that name already, the
    // later write wins, as if the two names had been one: the earlier object is deleted, its bytes released.
    async up(db: Kysely<unknown>) {
      const store = db as Kysely<any>;
      const now = new Date().toISOString();
      // Only a key with a character past ASCII can change.
      const beyondAscii = sql<boolean>`length(key) <> octet_length(key)`;
      const objects = await store.selectFrom('storage_objects').select(['mode', 'entity_id', 'key', 'sha256', 'size', 'created_at']).where(beyondAscii).execute();
      for (const object of objects) {
        const target = (object.key as string).normalize('NFC');
        if (target === object.key) continue;
        const named = (key: string) => ({ mode: object.mode, entity_id: object.entity_id, key });
        const holder = await store.selectFrom('storage_objects').select(['key', 'sha256', 'size', 'created_at']).where((eb) => eb.and(named(target))).executeTakeFirst();
        if (holder) {
          const loser = holder.created_at > object.created_at ? object : holder;
          await store.deleteFrom('storage_objects').where((eb) => eb.and(named(loser.key))).execute();
          await store
            .updateTable('storage_usage')
            .set({ bytes: sql`bytes - ${Number(loser.size)}`, objects: sql`objects - 1` })
            .where((eb) => eb.and({ mode: object.mode, entity_id: object.entity_id }))
            .execute();
          await store
            .updateTable('storage_blobs')
            .set({ refs: sql`refs - 1`, released_at: sql`case when refs = 1 then ${now} else released_at end` })
            .where('sha256', '=', loser.sha256)
            .execute();
          if (loser === object) continue;
        }
        await store.updateTable('storage_objects').set({ key: target }).where((eb) => eb.and(named(object.key))).execute();
      }
      const uploads = await store.selectFrom('storage_uploads').select(['id', 'key']).where(beyondAscii).execute();
      for (const upload of uploads) {
        const target = (upload.key as string).normalize('NFC');
        if (target !== upload.key) await store.updateTable('storage_uploads').set({ key: target }).where('id', '=', upload.id).execute();
      }
    },
  },
];
