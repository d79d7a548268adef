/**
 * What the storage face's handlers and routes share in one server: the blob store, each tier's limits,
 * and how long released content is kept before it is collected.
 */
import type { Tier } from '../../spec/model.js';
import type { BlobStore } from './blob-store.js';
import { tierLimits, type StorageLimits } from './limits.js';

export interface StorageService {
  readonly blobs: BlobStore;
  limits(tier: string): StorageLimits;
}

export function storageService(blobs: BlobStore, tiers: readonly Tier[]): StorageService {
  return { blobs, limits: tierLimits(tiers) };
}
