/**
 * What the storage module offers the handlers and routes of one server, and other faces (e-mail attaches
 * stored objects): the blob store, each tier's limits, the objects by key, and holding content by its
 * digest beyond any object (a queued attachment) until it is let go.
 */
import type { Partition } from '../../store/partition.js';
import type { Db } from '../../store/schema.js';
import type { Tier } from '../../spec/model.js';
import type { BlobStore } from './blob-store.js';
import { objectKey } from './keys.js';
import { tierLimits, type StorageLimits } from './limits.js';
import { getObject, holdBlob, releaseBlob } from './store.js';

/** A stored object as other faces see it: its key and the content it holds now. */
export interface StoredObject {
  readonly key: string;
  readonly contentType: string;
  readonly size: number;
  readonly sha256: string;
  readonly md5: string;
}

/** Content by its digest, as held beyond any object. */
export interface HeldContent {
  readonly sha256: string;
  readonly md5: string;
  readonly size: number;
}

export interface StorageService {
  readonly blobs: BlobStore;
  limits(tier: string): StorageLimits;
  /** The object under `key` (in Unicode NFC, as keys are kept; `param` names the field a refusal points at), if any. */
  object(db: Db, p: Partition, key: string, param: string): Promise<StoredObject | undefined>;
  /** Keeps the content from being collected, whatever happens to the objects that hold it, until `release`. */
  hold(db: Db, content: HeldContent): Promise<void>;
  release(db: Db, sha256: string): Promise<void>;
}

export function storageService(blobs: BlobStore, tiers: readonly Tier[]): StorageService {
  return {
    blobs,
    limits: tierLimits(tiers),
    async object(db, p, key, param) {
      const row = await getObject(db, p, objectKey(key, param));
      return row && { key: row.key, contentType: row.content_type, size: Number(row.size), sha256: row.sha256, md5: row.md5 };
    },
    hold: (db, content) => holdBlob(db, content),
    release: (db, sha256) => releaseBlob(db, sha256),
  };
}
