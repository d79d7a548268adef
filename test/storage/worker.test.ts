/**
 * The storage worker's sweep on the files store: signed uploads expired for over an hour are dropped, recent
 * ones kept; temporary files a crash left a day ago are deleted, fresh ones (an upload arriving) kept; content
 * no object holds is collected, content an object holds is not.
 */
import { mkdtempSync, rmSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { shippedCatalogue, openShippedStore } from '../../src/server/shipped.js';
import { FileBlobStore } from '../../src/faces/storage/file-blobs.js';
import { storeObject, removeObject } from '../../src/faces/storage/objects.js';
import { storageService } from '../../src/faces/storage/service.js';
import { StorageWorker } from '../../src/faces/storage/worker.js';
import type { Db } from '../../src/store/schema.js';
import { insertUpload } from '../../src/faces/storage/store.js';

let dir: string;
let db: Db;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dispatch-storage-worker-'));
  db = await openShippedStore({ dataDir: dir });
});
afterAll(async () => {
  await db?.destroy();
  rmSync(dir, { recursive: true, force: true });
});

it('drops expired uploads and stale temporary files, and collects content no object holds', async () => {
  const blobs = new FileBlobStore(join(dir, 'storage'), () => 'http://unused');
  const service = storageService(blobs, shippedCatalogue().platform.tiers);
  const p = { mode: 'test' as const, entityId: 'acme' };
  const limits = service.limits('enterprise');
  const upload = (id: string, expiresAt: number) =>
    insertUpload(db, { id, mode: 'test', entity_id: 'acme', key: id, size: 1, content_type: 'text/plain', metadata: '{}', tier: 'enterprise', api_version: '2026-09-01', expires_at: new Date(expiresAt).toISOString(), created_at: new Date().toISOString() });
  await upload('upl_old', Date.now() - 2 * 3_600_000);
  await upload('upl_recent', Date.now() - 60_000);

  const stale = join(dir, 'storage', 'tmp', 'stale.part');
  const fresh = join(dir, 'storage', 'tmp', 'fresh.part');
  writeFileSync(stale, 'half');
  writeFileSync(fresh, 'arriving');
  const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000);
  utimesSync(stale, twoDaysAgo, twoDaysAgo);

  const kept = await blobs.stageBytes(Buffer.from('kept'));
  const dropped = await blobs.stageBytes(Buffer.from('dropped'));
  await db.transaction().execute(async (trx) => {
    await storeObject(trx, blobs, p, { key: 'kept', contentType: 'text/plain', metadata: {}, staged: kept }, limits);
    await storeObject(trx, blobs, p, { key: 'dropped', contentType: 'text/plain', metadata: {}, staged: dropped }, limits);
  });
  await db.transaction().execute((trx) => removeObject(trx, p, 'dropped'));
  // With no grace, content released before now is collected: not in the very millisecond of its release.
  await new Promise((resolve) => setTimeout(resolve, 5));

  const result = await new StorageWorker(db, service, { pollMs: 1000, gcGraceMs: 0 }).pass();
  expect(result).toEqual({ taken: 0, collected: 1 });
  expect((await db.selectFrom('storage_uploads').select('id').execute()).map((u) => u.id)).toEqual(['upl_recent']);
  expect([existsSync(stale), existsSync(fresh)]).toEqual([false, true]);
  expect(existsSync(blobs.path(kept.sha256))).toBe(true);
  expect(existsSync(blobs.path(dropped.sha256))).toBe(false);
  expect(await db.selectFrom('storage_usage').select(['bytes', 'objects']).executeTakeFirst()).toMatchObject({ objects: 1 });
});

it('counts the stored bytes of a partition not counted for a day, once', async () => {
  const service = storageService(new FileBlobStore(join(dir, 'storage'), () => 'http://unused'), shippedCatalogue().platform.tiers);
  const worker = new StorageWorker(db, service, { pollMs: 1000, gcGraceMs: 0 });
  // The object "kept" of the test above holds 4 bytes in test/acme.
  const inTwoDays = Date.now() + 2 * 86_400_000;
  expect(await worker.accrueStored(inTwoDays)).toBe(1);
  expect(await worker.accrueStored(inTwoDays)).toBe(0);
  const meter = await db.selectFrom('usage_meter_rollups').select(['value']).where('entity_id', '=', 'acme').where('type', '=', 'storage.storedByteDays').execute();
  expect(meter.reduce((sum, r) => sum + Number(r.value), 0)).toBeCloseTo(8, 1);
});
