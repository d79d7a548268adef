/**
 * The default blob store: files under a directory (`<DATA_DIR>/storage` unless `STORAGE_DIR` says
 * otherwise), `blobs/<first two hex digits>/<sha256>`. Content is written to `tmp/` while it is hashed,
 * flushed to disk, checked against the size counted, and only then renamed to its SHA-256, so a crash leaves
 * at most a stray temporary file, never a half-written blob. Signed URLs point at this server
 * (src/faces/storage/routes.ts), which receives uploads itself: none ever lands on its own.
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { makeDirectory } from '../../make-directory.js';
import type { BlobStore, DownloadToSign, SignedTarget, StagedBlob, UploadToSign } from './blob-store.js';
import { DigestStream } from './digest.js';
import { signUrl } from './signed-urls.js';

export class FileBlobStore implements BlobStore {
  readonly kind = 'files';
  readonly #root: string;
  readonly #baseUrl: () => string;

  /** `baseUrl` is where clients reach this server, read when a URL is signed. */
  constructor(root: string, baseUrl: () => string) {
    this.#root = root;
    this.#baseUrl = baseUrl;
    makeDirectory(join(root, 'blobs'));
    makeDirectory(join(root, 'tmp'));
  }

  /** Where a blob's file is (also read by the download route, which streams it). */
  path(sha256: string): string {
    return join(this.#root, 'blobs', sha256.slice(0, 2), sha256);
  }

  stageBytes(bytes: Buffer): Promise<StagedBlob> {
    return this.stageStream(Readable.from([bytes]), bytes.length);
  }

  async stageStream(source: Readable, limit: number): Promise<StagedBlob> {
    const temp = join(this.#root, 'tmp', `${randomUUID()}.part`);
    const digest = new DigestStream(limit);
    // Piped by hand rather than by `pipeline`, which would destroy the source on a refusal: a request's
    // stream is its connection, and the refusal still has to be answered on it.
    source.pipe(digest);
    const cutShort = () => {
      if (!source.readableEnded) digest.destroy(new Error('The sender closed the connection before the end of the content.'));
    };
    source.once('error', cutShort).once('close', cutShort);
    try {
      await pipeline(digest, createWriteStream(temp, { flags: 'wx', mode: 0o600 }));
      // On disk before it can be renamed into place: a crash after the rename never finds it half written.
      const file = await open(temp, 'r');
      await file.sync().finally(() => file.close());
      const written = await stat(temp);
      if (written.size !== digest.digest.size) throw new Error(`Storage wrote ${written.size} bytes of ${digest.digest.size} to ${temp}.`);
    } catch (error) {
      source.unpipe(digest);
      await rm(temp, { force: true });
      throw error;
    } finally {
      source.off('error', cutShort).off('close', cutShort);
    }
    return { ...digest.digest, handle: temp };
  }

  async keep(staged: StagedBlob): Promise<void> {
    const target = this.path(staged.sha256);
    if (await exists(target)) return;
    await mkdir(join(target, '..'), { recursive: true });
    await rename(staged.handle as string, target);
  }

  async discard(staged: StagedBlob): Promise<void> {
    await rm(staged.handle as string, { force: true });
  }

  read(sha256: string): Promise<Buffer> {
    return readFile(this.path(sha256));
  }

  async remove(sha256: string): Promise<void> {
    await rm(this.path(sha256), { force: true });
  }

  async uploadTarget(upload: UploadToSign): Promise<SignedTarget> {
    return { url: signUrl(this.#baseUrl(), 'PUT', { upload: upload.id }, upload.expiresAt), method: 'PUT', headers: {} };
  }

  async downloadTarget(download: DownloadToSign): Promise<SignedTarget> {
    // Bound to the content as well as the key: the link serves these bytes, or nothing.
    const params = { mode: download.mode, entity: download.entityId, key: download.key, sha256: download.sha256, ...(download.filename ? { filename: download.filename } : {}) };
    return { url: signUrl(this.#baseUrl(), 'GET', params, download.expiresAt), method: 'GET', headers: {} };
  }

  async landedUploads() {
    return [];
  }

  stageLanded(): Promise<StagedBlob> {
    throw new Error('Uploads to the files store arrive through this server, never on their own.');
  }

  async dropLanded(): Promise<void> {}

  async dropStaleStaging(before: Date): Promise<number> {
    const dir = join(this.#root, 'tmp');
    let dropped = 0;
    for (const name of await readdir(dir)) {
      const path = join(dir, name);
      const info = await stat(path).catch(() => undefined);
      if (info && info.mtime < before) {
        await rm(path, { force: true });
        dropped++;
      }
    }
    return dropped;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
