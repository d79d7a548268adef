/**
 * The tables of the storage face: objects by (mode, entity, key), blobs (content by SHA-256 with the number
 * of objects holding it), each partition's stored bytes, and signed uploads not yet received. Every change
 * runs in its caller's transaction; the blob and usage rows are updated with single statements that lock
 * them until it commits, which is what keeps reference counts and quotas exact under concurrent calls.
 */
import { sql } from 'kysely';
import type { Partition } from '../../store/partition.js';
import { decimalAdd, decimalQuotient, Exact, METER_PLACES } from '../../store/exact-decimal.js';
import { storeKind } from '../../store/open.js';
import { periodOf } from '../../store/periods.js';
import type { Db, Mode } from '../../store/schema.js';
import type { StorageObjectTable, StorageUploadTable } from './tables.js';

const inPartition = (p: Partition) => ({ mode: p.mode, entity_id: p.entityId });

export function getObject(db: Db, p: Partition, key: string): Promise<StorageObjectTable | undefined> {
  return db.selectFrom('storage_objects').selectAll().where('mode', '=', p.mode).where('entity_id', '=', p.entityId).where('key', '=', key).executeTakeFirst();
}

/** Deletes the object under a key and answers it, or undefined when there was none. */
export function deleteObject(db: Db, p: Partition, key: string): Promise<StorageObjectTable | undefined> {
  return db.deleteFrom('storage_objects').where('mode', '=', p.mode).where('entity_id', '=', p.entityId).where('key', '=', key).returningAll().executeTakeFirst();
}

export async function insertObject(db: Db, row: StorageObjectTable): Promise<void> {
  await db.insertInto('storage_objects').values(row).execute();
}

/**
 * Keys in byte order after `cursor`, under `prefix`, one more than `limit` to tell whether a page follows.
 * Every key under a prefix P sorts before P followed by U+10FFFF, which keys may not hold: the range is
 * read from the primary key's index alone.
 */
export function listObjects(db: Db, p: Partition, options: { prefix?: string; cursor?: string; limit: number }): Promise<StorageObjectTable[]> {
  const prefix = options.prefix ?? '';
  const from = options.cursor !== undefined && options.cursor >= prefix ? options.cursor : undefined;
  let query = db.selectFrom('storage_objects').selectAll().where('mode', '=', p.mode).where('entity_id', '=', p.entityId);
  if (from !== undefined) query = query.where('key', '>', from);
  else if (prefix !== '') query = query.where('key', '>=', prefix);
  if (prefix !== '') query = query.where('key', '<', `${prefix}\u{10FFFF}`);
  return query.orderBy('key').limit(options.limit + 1).execute();
}

/** One more object holds a blob: inserted at one reference, or taken back from the collector. */
export async function holdBlob(db: Db, blob: { sha256: string; md5: string; size: number }): Promise<void> {
  await db
    .insertInto('storage_blobs')
    .values({ sha256: blob.sha256, md5: blob.md5, size: blob.size, refs: 1, released_at: null, created_at: new Date().toISOString() })
    .onConflict((c) => c.column('sha256').doUpdateSet({ refs: sql`storage_blobs.refs + 1`, released_at: null }))
    .execute();
}

/** One object fewer holds a blob; at none it is released, and collected after the grace period. */
export async function releaseBlob(db: Db, sha256: string): Promise<void> {
  await db
    .updateTable('storage_blobs')
    .set({ refs: sql`refs - 1`, released_at: sql`case when refs = 1 then ${new Date().toISOString()} else released_at end` })
    .where('sha256', '=', sha256)
    .execute();
}

/**
 * Content placed by a transaction that then rolled back (its row went with it): released now, so that the
 * collector deletes it after the grace period, unless a row already has it (an object holds it, or it is
 * released already). Called on the store itself, after the rollback.
 */
export async function releasePlacedBlob(db: Db, blob: { sha256: string; md5: string; size: number }): Promise<void> {
  const now = new Date().toISOString();
  await db
    .insertInto('storage_blobs')
    .values({ sha256: blob.sha256, md5: blob.md5, size: blob.size, refs: 0, released_at: now, created_at: now })
    .onConflict((c) => c.column('sha256').doNothing())
    .execute();
}

/**
 * Blobs no object has held since before `releasedBefore`, locked until the caller's transaction ends
 * (PostgreSQL skips those a call is taking back meanwhile; SQLite runs one writer at a time).
 */
export function releasedBlobs(db: Db, releasedBefore: string, limit: number): Promise<{ sha256: string }[]> {
  return db
    .selectFrom('storage_blobs')
    .select('sha256')
    .where('refs', '=', 0)
    .where('released_at', '<', releasedBefore)
    .limit(limit)
    .$if(storeKind(db) === 'postgres', (q) => q.forUpdate().skipLocked())
    .execute();
}

export async function deleteBlobRow(db: Db, sha256: string): Promise<void> {
  await db.deleteFrom('storage_blobs').where('sha256', '=', sha256).where('refs', '=', 0).execute();
}

/** Adds to a partition's stored bytes and objects; answers the bytes stored afterwards. */
export async function addUsage(db: Db, p: Partition, bytes: number, objects: number): Promise<number> {
  const row = await db
    .insertInto('storage_usage')
    // A new partition's bytes count from now (its earlier bytes were none).
    .values({ ...inPartition(p), bytes, objects, accrued_at: new Date().toISOString() })
    .onConflict((c) => c.columns(['mode', 'entity_id']).doUpdateSet({ bytes: sql`storage_usage.bytes + ${bytes}`, objects: sql`storage_usage.objects + ${objects}` }))
    .returning('bytes')
    .executeTakeFirstOrThrow();
  return Number(row.bytes);
}

/** The meter stored bytes accrue to, per partition: bytes × days, in the usage face's meters. */
export const STORED_BYTES_METER = 'storage.storedByteDays';

/**
 * Counts a partition's stored bytes from when they were last counted until `now` (bytes × days) into the
 * `storage.storedByteDays` meter of `now`'s minute, and moves the count on to `now`. Called before its bytes
 * change (they were that many until then) and once a day by the storage worker. A conditional UPDATE on the
 * time it read: of two counts racing, one counts the interval.
 */
export async function accrueStoredBytes(db: Db, p: Partition, now = Date.now()): Promise<number> {
  const row = await db.selectFrom('storage_usage').select(['bytes', 'accrued_at']).where('mode', '=', p.mode).where('entity_id', '=', p.entityId).executeTakeFirst();
  if (!row) return 0;
  const at = new Date(now).toISOString();
  const since = row.accrued_at ?? at;
  if (since >= at) return 0;
  const moved = await db
    .updateTable('storage_usage')
    .set({ accrued_at: at })
    .where('mode', '=', p.mode)
    .where('entity_id', '=', p.entityId)
    .where((eb) => (row.accrued_at === null ? eb('accrued_at', 'is', null) : eb('accrued_at', '=', row.accrued_at)))
    .executeTakeFirst();
  // Exact, to the places of every meter value: a float here would be added up inexactly.
  const byteDays = decimalQuotient(new Exact(String(row.bytes)).times(now - Date.parse(since)), 86_400_000, METER_PLACES);
  if (Number(moved.numUpdatedRows) !== 1 || Number(byteDays) <= 0) return 0;
  await db
    .insertInto('usage_meter_rollups')
    .values({ ...inPartition(p), minute: periodOf(at, 'minute'), type: STORED_BYTES_METER, events: 1, value: byteDays })
    .onConflict((oc) =>
      oc.columns(['mode', 'entity_id', 'minute', 'type']).doUpdateSet({
        events: sql`usage_meter_rollups.events + 1`,
        value: decimalAdd(db, sql.ref('usage_meter_rollups.value'), sql.ref('excluded.value')),
      }),
    )
    .execute();
  return Number(byteDays);
}

/** Partitions holding bytes not counted since before `before`, for the storage worker's daily count. */
export function partitionsToAccrue(db: Db, before: string, limit: number): Promise<{ mode: Mode; entity_id: string }[]> {
  return db
    .selectFrom('storage_usage')
    .select(['mode', 'entity_id'])
    .where('bytes', '>', 0)
    .where((eb) => eb.or([eb('accrued_at', 'is', null), eb('accrued_at', '<', before)]))
    .limit(limit)
    .execute();
}

export async function storedBytes(db: Db, p: Partition): Promise<number> {
  const row = await db.selectFrom('storage_usage').select('bytes').where('mode', '=', p.mode).where('entity_id', '=', p.entityId).executeTakeFirst();
  return Number(row?.bytes ?? 0);
}

export async function insertUpload(db: Db, row: StorageUploadTable): Promise<void> {
  await db.insertInto('storage_uploads').values(row).execute();
}

export function getUpload(db: Db, id: string): Promise<StorageUploadTable | undefined> {
  return db.selectFrom('storage_uploads').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Takes an upload to complete it: only one taker gets the row (the others wait, then find none). */
export function takeUpload(db: Db, id: string): Promise<StorageUploadTable | undefined> {
  return db.deleteFrom('storage_uploads').where('id', '=', id).returningAll().executeTakeFirst();
}

/** Deletes the uploads that expired before `before`; answers their ids. */
export async function purgeUploads(db: Db, before: string): Promise<string[]> {
  const rows = await db.deleteFrom('storage_uploads').where('expires_at', '<', before).returning('id').execute();
  return rows.map((r) => r.id);
}
