/**
 * The storage backends the storage suites run over: files under a directory (on SQLite and on PostgreSQL)
 * and an S3-compatible bucket (s3rver). Each gives the server's storage settings and a blob store of its own
 * on the same place, for tests that look at the content directly.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BlobStore } from '../../src/faces/storage/blob-store.js';
import type { StorageSettings } from '../../src/faces/storage/settings.js';
import { FileBlobStore } from '../../src/faces/storage/file-blobs.js';
import { S3BlobStore } from '../../src/faces/storage/s3-blobs.js';
import { startLocalS3, type LocalS3 } from './s3.js';

export interface Backend {
  name: string;
  postgres: boolean;
  /** Whether the service behind signed URLs checks their signatures (s3rver checks only their expiry). */
  checksSignatures: boolean;
  /** Whether signed URLs point at this server (the files store), rather than at the bucket. */
  servedHere: boolean;
  start(): Promise<{ settings: Partial<StorageSettings>; blobs: BlobStore; close(): Promise<void> }>;
}

const files = (postgres: boolean): Backend => ({
  name: `files on ${postgres ? 'PostgreSQL' : 'SQLite'}`,
  postgres,
  checksSignatures: true,
  servedHere: true,
  async start() {
    const dir = mkdtempSync(join(tmpdir(), 'dispatch-storage-'));
    return { settings: { dir }, blobs: new FileBlobStore(dir, () => 'http://unused'), close: async () => rmSync(dir, { recursive: true, force: true }) };
  },
});

const s3: Backend = {
  name: 'S3 (s3rver) on SQLite',
  postgres: false,
  checksSignatures: false,
  servedHere: false,
  async start() {
    const local: LocalS3 = await startLocalS3();
    return { settings: { s3: local.settings }, blobs: new S3BlobStore(local.settings), close: () => local.close() };
  },
};

export const STORAGE_BACKENDS: Backend[] = [files(false), files(true), s3];
