/**
 * Storing and deleting objects, in the caller's transaction (a call's, or the upload route's own): the
 * partition's usage row first (it locks the partition's writes, so two uploads cannot both slip under the
 * quota, nor two writes of one key both insert it), then the stored bytes, a reference to the blob, the
 * content kept under its SHA-256, and the object row, releasing the blob of the object it replaces. Blobs no
 * object holds are collected by `collectReleasedBlobs` after a grace period, in a transaction of their own
 * that holds their rows, so a call keeping the same content again either waits for the collection and writes
 * the content anew, or takes the blob back first and the collector leaves it alone: deleting one key never
 * loses bytes another holds. Content placed by a transaction that rolls back is released after the rollback,
 * so it is collected too; the caller's transaction must be a `CallTransaction` for that (afterRollback).
 */
import { ApiError } from '../../core/errors.js';
import type { Partition } from '../../store/partition.js';
import { storeKind } from '../../store/open.js';
import type { Db } from '../../store/schema.js';
import type { StorageObjectTable } from './tables.js';
import { accrueStoredBytes, addUsage, deleteBlobRow, deleteObject, holdBlob, insertObject, releaseBlob, releasedBlobs, releasePlacedBlob } from './store.js';
import { afterRollback } from '../../store/transaction.js';
import type { BlobStore, StagedBlob } from './blob-store.js';
import type { StorageLimits } from './limits.js';

export interface NewObject {
  key: string;
  contentType: string;
  metadata: Record<string, string>;
  staged: StagedBlob;
}

/** The object stored, and the one it replaced. */
export interface Stored {
  row: StorageObjectTable;
  replaced: StorageObjectTable | undefined;
}

/**
 * Stores `object` under its key in the partition, replacing what was there.
 * The caller has checked the size against the tier's largest object.
 * @throws ApiError quota_exceeded (403) when it would take the partition past its tier's quota.
 */
export async function storeObject(db: Db, blobs: BlobStore, p: Partition, object: NewObject, limits: StorageLimits): Promise<Stored> {
  const { staged } = object;
  await lockPartition(db, p);
  // The bytes stored until now are counted before they change.
  await accrueStoredBytes(db, p);
  const replaced = await deleteObject(db, p, object.key);
  const stored = await addUsage(db, p, staged.size - Number(replaced?.size ?? 0), replaced ? 0 : 1);
  if (stored > limits.storedBytes && staged.size > Number(replaced?.size ?? 0)) throw quotaExceeded(limits, stored - staged.size + Number(replaced?.size ?? 0));
  await holdBlob(db, staged);
  // The content is placed now, outside the transaction: should it roll back, the content is released instead.
  afterRollback(db, (store) => releasePlacedBlob(store, staged));
  await blobs.keep(staged);
  if (replaced) await releaseBlob(db, replaced.sha256);
  const row: StorageObjectTable = {
    mode: p.mode,
    entity_id: p.entityId,
    key: object.key,
    sha256: staged.sha256,
    md5: staged.md5,
    size: staged.size,
    content_type: object.contentType,
    metadata: JSON.stringify(object.metadata),
    created_at: new Date().toISOString(),
  };
  await insertObject(db, row);
  return { row, replaced };
}

/** Deletes the object under `key`, releasing its blob; undefined when there is none. */
export async function removeObject(db: Db, p: Partition, key: string): Promise<StorageObjectTable | undefined> {
  await lockPartition(db, p);
  const removed = await deleteObject(db, p, key);
  if (!removed) return undefined;
  await accrueStoredBytes(db, p);
  await addUsage(db, p, -Number(removed.size), -1);
  await releaseBlob(db, removed.sha256);
  return removed;
}

/**
 * Takes the partition's usage row (adding nothing) until the transaction ends: writes to one partition's
 * objects then run one after another, so two writes of one key cannot both find it empty and both insert it,
 * and a write and a delete take their rows in the same order (no deadlock).
 */
async function lockPartition(db: Db, p: Partition): Promise<void> {
  // SQLite needs none: a transaction there holds the only writer from its first write to its end.
  if (storeKind(db) === 'postgres') await addUsage(db, p, 0, 0);
}

/** @throws ApiError payload_too_large (413) when `size` is over the tier's largest object. */
export function checkObjectSize(size: number, limits: StorageLimits, param?: string): void {
  if (size > limits.objectBytes) {
    throw new ApiError('payload_too_large', `The object is ${size} bytes; the largest this key's tier stores is ${limits.objectBytes}.`, { ...(param ? { param } : {}), details: { limit: limits.objectBytes, size } });
  }
}

export function quotaExceeded(limits: StorageLimits, stored: number): ApiError {
  return new ApiError('quota_exceeded', `The storage quota of this key's tier (${limits.storedBytes} bytes) is full: ${stored} bytes are stored.`, {
    details: { quota: limits.storedBytes, stored },
  });
}

/**
 * Deletes blobs no object has held for `graceMs` (a read that found the object just before its deletion
 * still finds the content meanwhile), at most `batch` of them; answers how many.
 */
export async function collectReleasedBlobs(db: Db, blobs: BlobStore, graceMs: number, batch = 100): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const released = await releasedBlobs(trx, new Date(Date.now() - graceMs).toISOString(), batch);
    for (const { sha256 } of released) {
      await blobs.remove(sha256);
      await deleteBlobRow(trx, sha256);
    }
    return released.length;
  });
}

