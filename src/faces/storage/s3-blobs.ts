/**
 * The blob store on an S3-compatible bucket (`S3_BUCKET`): blobs at `<prefix>blobs/<sha256>`. Inline
 * content is put from memory; signed uploads are S3 presigned PUTs to `<prefix>uploads/<upload id>`, bound
 * to the declared size (a signed Content-Length) and content type, and taken in once they land: read once
 * to learn their digest, copied to their blob inside the bucket when it is not there yet, then deleted.
 * Signed downloads are presigned GETs of the blob, answering the object's content type (and file name).
 */
import { CopyObjectCommand, DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { BlobStore, DownloadToSign, LandedUpload, SignedTarget, StagedBlob, UploadToSign } from './blob-store.js';
import { contentDisposition } from './content-disposition.js';
import { DigestStream, digestOf } from './digest.js';

export interface S3Settings {
  bucket: string;
  /** The service's URL; AWS's own endpoint for the region when absent. */
  endpoint?: string;
  region: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  /** `https://host/bucket/key` rather than `https://bucket.host/key` (most S3-compatible servers). */
  forcePathStyle: boolean;
  /** Put before every key this server writes in the bucket (`dispatch/`), so it can share a bucket. */
  prefix: string;
}

/** Staged content: bytes to put, or a landed upload to copy. */
type Handle = { bytes: Buffer } | { landed: string };

export class S3BlobStore implements BlobStore {
  readonly kind = 's3';
  readonly #s3: S3Client;
  readonly #bucket: string;
  readonly #prefix: string;

  constructor(settings: S3Settings) {
    this.#bucket = settings.bucket;
    this.#prefix = settings.prefix;
    this.#s3 = new S3Client({
      region: settings.region,
      forcePathStyle: settings.forcePathStyle,
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      ...(settings.accessKeyId && settings.secretAccessKey ? { credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } } : {}),
      // Checksums only where S3 requires them: the server hashes content itself, and S3-compatible servers
      // that predate the flexible checksums refuse the headers.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  #blobKey = (sha256: string) => `${this.#prefix}blobs/${sha256}`;
  #uploadKey = (id: string) => `${this.#prefix}uploads/${id}`;

  async stageBytes(bytes: Buffer): Promise<StagedBlob> {
    return { ...digestOf(bytes), handle: { bytes } satisfies Handle };
  }

  stageStream(): Promise<StagedBlob> {
    throw new Error('Uploads to S3 go to the bucket directly (presigned), never through this server.');
  }

  async keep(staged: StagedBlob): Promise<void> {
    const Key = this.#blobKey(staged.sha256);
    if (await this.#exists(Key)) return;
    const handle = staged.handle as Handle;
    if ('bytes' in handle) {
      await this.#s3.send(new PutObjectCommand({ Bucket: this.#bucket, Key, Body: handle.bytes, ContentLength: handle.bytes.length, ContentMD5: Buffer.from(staged.md5, 'hex').toString('base64') }));
    } else {
      await this.#s3.send(new CopyObjectCommand({ Bucket: this.#bucket, Key, CopySource: encodeURI(`${this.#bucket}/${this.#uploadKey(handle.landed)}`), CopySourceIfMatch: `"${staged.md5}"` }));
    }
  }

  async discard(staged: StagedBlob): Promise<void> {
    const handle = staged.handle as Handle;
    if ('landed' in handle) await this.dropLanded(handle.landed);
  }

  async read(sha256: string): Promise<Buffer> {
    const answer = await this.#s3.send(new GetObjectCommand({ Bucket: this.#bucket, Key: this.#blobKey(sha256) }));
    return Buffer.from(await answer.Body!.transformToByteArray());
  }

  async remove(sha256: string): Promise<void> {
    await this.#s3.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: this.#blobKey(sha256) }));
  }

  async uploadTarget(upload: UploadToSign): Promise<SignedTarget> {
    const command = new PutObjectCommand({ Bucket: this.#bucket, Key: this.#uploadKey(upload.id), ContentType: upload.contentType, ContentLength: upload.size });
    const url = await getSignedUrl(this.#s3, command, { expiresIn: secondsUntil(upload.expiresAt), signableHeaders: new Set(['content-type', 'content-length']) });
    return { url, method: 'PUT', headers: { 'Content-Type': upload.contentType } };
  }

  async downloadTarget(download: DownloadToSign): Promise<SignedTarget> {
    const command = new GetObjectCommand({
      Bucket: this.#bucket,
      Key: this.#blobKey(download.sha256),
      ResponseContentType: download.contentType,
      ...(download.filename ? { ResponseContentDisposition: contentDisposition(download.filename) } : {}),
    });
    return { url: await getSignedUrl(this.#s3, command, { expiresIn: secondsUntil(download.expiresAt) }), method: 'GET', headers: {} };
  }

  async landedUploads(): Promise<LandedUpload[]> {
    const landed: LandedUpload[] = [];
    const prefix = this.#uploadKey('');
    let token: string | undefined;
    do {
      const page = await this.#s3.send(new ListObjectsV2Command({ Bucket: this.#bucket, Prefix: prefix, ...(token ? { ContinuationToken: token } : {}) }));
      for (const item of page.Contents ?? []) landed.push({ id: item.Key!.slice(prefix.length), at: item.LastModified ?? new Date() });
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return landed;
  }

  async stageLanded(id: string, limit: number): Promise<StagedBlob> {
    const answer = await this.#s3.send(new GetObjectCommand({ Bucket: this.#bucket, Key: this.#uploadKey(id) }));
    const digest = new DigestStream(limit);
    const discardAll = new Writable({ write: (_chunk, _encoding, done) => done() });
    await pipeline(answer.Body as Readable, digest, discardAll);
    return { ...digest.digest, handle: { landed: id } satisfies Handle };
  }

  async dropLanded(id: string): Promise<void> {
    await this.#s3.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: this.#uploadKey(id) }));
  }

  async dropStaleStaging(): Promise<number> {
    // Inline content is staged in memory, and landed uploads are dropped as they are taken in or expire.
    return 0;
  }

  async #exists(Key: string): Promise<boolean> {
    try {
      await this.#s3.send(new HeadObjectCommand({ Bucket: this.#bucket, Key }));
      return true;
    } catch (error) {
      if (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404) return false;
      throw error;
    }
  }
}

/** Whole seconds from now to `at`, at least one (a presigned URL's `expiresIn`). */
function secondsUntil(at: Date): number {
  return Math.max(1, Math.round((at.getTime() - Date.now()) / 1000));
}
