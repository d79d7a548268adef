/**
 * The storage face's background work, run by each server: taking in uploads that landed in S3 on their own
 * (presigned PUTs), dropping signed uploads that expired unused and temporary files a crash left,
 * collecting content no object has held for the grace period, and counting each partition's stored bytes
 * once a day. Every step is safe to run in several processes at once (see uploads.ts, objects.ts).
 */
import type { Db } from '../../store/schema.js';
import { accrueStoredBytes, getUpload, partitionsToAccrue, purgeUploads, takeUpload } from './store.js';
import { TooLargeError } from './digest.js';
import { collectReleasedBlobs } from './objects.js';
import type { StorageService } from './service.js';
import { completeUpload } from './uploads.js';
import { ApiError } from '../../core/errors.js';
import { Poller } from '../../core/poller.js';
import { log } from '../../core/log.js';

export interface StorageWorkerOptions {
  /** How often landed uploads are looked for (`STORAGE_POLL_MS`). */
  pollMs: number;
  /** How long content no object holds is kept before it is deleted (`STORAGE_GC_GRACE_SECONDS`). */
  gcGraceMs: number;
}

export const DEFAULT_STORAGE_WORKER: StorageWorkerOptions = { pollMs: 1000, gcGraceMs: 3_600_000 };

/** How long after its URL expired an upload row is kept, so that bytes that landed in time are still taken in. */
const EXPIRED_UPLOAD_GRACE_MS = 3_600_000;

/** Staged content this old was left by a crash (an upload cannot take longer than a day to arrive). */
const STALE_STAGING_MS = 86_400_000;

/** Stored bytes are counted at least this often per partition, besides whenever they change. */
const ACCRUAL_INTERVAL_MS = 86_400_000;

/** Collections and purges run at most this often; looking for landed uploads runs every poll. */
const SWEEP_INTERVAL_MS = 60_000;

export class StorageWorker {
  readonly #db: Db;
  readonly #storage: StorageService;
  readonly #options: StorageWorkerOptions;
  readonly #poller: Poller;
  #stopped = false;
  #lastSweep = 0;

  constructor(db: Db, storage: StorageService, options: StorageWorkerOptions) {
    this.#db = db;
    this.#storage = storage;
    this.#options = options;
    this.#poller = new Poller('storage worker', options.pollMs, async () => void (await this.pass()));
  }

  start(): void {
    this.#poller.start();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#poller.stop();
  }

  /** One pass; answers how many uploads were taken in and blobs collected. */
  async pass(now = Date.now()): Promise<{ taken: number; collected: number }> {
    const taken = await this.takeLanded(now);
    let collected = 0;
    if (now - this.#lastSweep >= SWEEP_INTERVAL_MS) {
      this.#lastSweep = now;
      await purgeUploads(this.#db, new Date(now - EXPIRED_UPLOAD_GRACE_MS).toISOString());
      // Staged content older than any request could take to arrive was left by a crash.
      await this.#storage.blobs.dropStaleStaging(new Date(now - STALE_STAGING_MS));
      collected = await collectReleasedBlobs(this.#db, this.#storage.blobs, this.#options.gcGraceMs);
      await this.accrueStored(now);
    }
    return { taken, collected };
  }

  /**
   * Counts the stored bytes of every partition not counted for a day (the storage.storedByteDays meter), so
   * that content kept for months is counted as the days pass, not only when it changes; answers how many.
   */
  async accrueStored(now = Date.now()): Promise<number> {
    let counted = 0;
    for (const row of await partitionsToAccrue(this.#db, new Date(now - ACCRUAL_INTERVAL_MS).toISOString(), 1000)) {
      if (this.#stopped) break;
      const p = { mode: row.mode, entityId: row.entity_id };
      await this.#db.transaction().execute((trx) => accrueStoredBytes(trx, p, now));
      counted++;
    }
    return counted;
  }

  /** Takes in every upload that landed in the blob store; drops those nobody is waiting for. */
  async takeLanded(now = Date.now()): Promise<number> {
    const { blobs } = this.#storage;
    let taken = 0;
    for (const landed of await blobs.landedUploads()) {
      if (this.#stopped) break;
      const upload = await getUpload(this.#db, landed.id);
      if (!upload) {
        // Completed by another process (which drops it too), or expired and purged.
        if (now - landed.at.getTime() > EXPIRED_UPLOAD_GRACE_MS) await blobs.dropLanded(landed.id);
        continue;
      }
      try {
        const staged = await blobs.stageLanded(landed.id, Number(upload.size));
        try {
          await completeUpload(this.#db, this.#storage, landed.id, staged);
          taken++;
        } finally {
          await blobs.discard(staged);
        }
      } catch (error) {
        if (!(error instanceof TooLargeError || error instanceof ApiError)) throw error;
        // The bytes are not what was signed for (or the quota is full): the upload fails for good.
        log.warn({ upload: landed.id, detail: error.message }, 'storage: upload refused');
        await takeUpload(this.#db, landed.id);
        await blobs.dropLanded(landed.id);
      }
    }
    return taken;
  }
}
