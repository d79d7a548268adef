/**
 * Where object content is kept: once per SHA-256 (a blob), whichever key holds it. Two implementations:
 * files under a directory (file-blobs.ts) and an S3-compatible bucket (s3-blobs.ts). Content arrives
 * staged (a temporary file, bytes in memory, or an upload that landed in the bucket), its digest known;
 * `keep` makes it the blob of its SHA-256 unless that blob is already there, and is called only while the
 * blob's row is locked by a reference (src/faces/storage/objects.ts), so that collecting a released blob and
 * keeping the same content again never interleave.
 */
import type { Readable } from 'node:stream';
import type { ContentDigest } from './digest.js';

/** Content ready to become a blob. `handle` is the implementation's own (a path, bytes, a bucket key). */
export interface StagedBlob extends ContentDigest {
  readonly handle: unknown;
}

/** What a signed URL names: one object, for one method, until `expiresAt`. */
export interface SignedTarget {
  url: string;
  method: 'GET' | 'PUT';
  /** Headers the request must send as they are. */
  headers: Record<string, string>;
}

/** A signed upload as the blob store signs it. */
export interface UploadToSign {
  id: string;
  size: number;
  contentType: string;
  expiresAt: Date;
}

/** An object as a download URL serves it. */
export interface DownloadToSign {
  mode: string;
  entityId: string;
  key: string;
  sha256: string;
  contentType: string;
  filename?: string;
  expiresAt: Date;
}

/** An upload that landed in the store without passing through this server (S3 presigned PUTs). */
export interface LandedUpload {
  id: string;
  /** When it landed. */
  at: Date;
}

export interface BlobStore {
  readonly kind: 'files' | 's3';
  /** Stages bytes held in memory (inline `put`). */
  stageBytes(bytes: Buffer): Promise<StagedBlob>;
  /** Stages a stream, refusing more than `limit` bytes (TooLargeError) while it reads. */
  stageStream(source: Readable, limit: number): Promise<StagedBlob>;
  /** Makes the staged content the blob of its SHA-256, unless that blob is there already. */
  keep(staged: StagedBlob): Promise<void>;
  /** Drops what staging left (a temporary file, a landed upload); harmless after `keep`. */
  discard(staged: StagedBlob): Promise<void>;
  /** The whole content of a blob (for `get`, only for small objects). */
  read(sha256: string): Promise<Buffer>;
  /** Deletes a blob; called only for blobs no object holds. */
  remove(sha256: string): Promise<void>;
  /** Where a signed upload sends its bytes. */
  uploadTarget(upload: UploadToSign): Promise<SignedTarget>;
  /** Where a signed download reads the object. */
  downloadTarget(download: DownloadToSign): Promise<SignedTarget>;
  /** Uploads that landed in the store itself, waiting to be taken in (empty for stores this server receives for). */
  landedUploads(): Promise<LandedUpload[]>;
  /** Stages a landed upload: reads it once to learn its digest, refusing more than `limit` bytes. */
  stageLanded(id: string, limit: number): Promise<StagedBlob>;
  /** Deletes a landed upload nobody will take in (expired, or refused). */
  dropLanded(id: string): Promise<void>;
  /** Deletes what staging left behind before `before` (a crash in the middle of a write); answers how many. */
  dropStaleStaging(before: Date): Promise<number>;
}
