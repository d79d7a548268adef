/**
 * Content that a transaction placed and then rolled back is collected like released content, on every
 * backend: an atomic batch of a `put` and a failing call answers `batch_aborted`, the content it had placed is
 * released once the batch has rolled back, and the collector deletes it after the grace period (none here);
 * content another key holds stays.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BlobStore } from '../../src/faces/storage/blob-store.js';
import { collectReleasedBlobs } from '../../src/faces/storage/objects.js';
import { STORAGE_BACKENDS } from '../helpers/storage-backends.js';
import { startServer, type TestServer } from '../helpers/server.js';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(STORAGE_BACKENDS)('content placed by a rolled-back batch on $name', (backend) => {
  let server: TestServer;
  let blobs: BlobStore;
  let closeBackend: () => Promise<void>;

  beforeAll(async () => {
    const started = await backend.start();
    blobs = started.blobs;
    closeBackend = started.close;
    // The server's own collector keeps released content an hour: only the test's collects it, when it says.
    server = await startServer({ postgres: backend.postgres, storage: { ...started.settings, worker: { pollMs: 50, gcGraceMs: 3_600_000 } } });
  });
  afterAll(async () => {
    await server?.close();
    await closeBackend?.();
  });

  const put = (key: string, bytes: Buffer) => ({ face: 'storage', action: 'put', payload: { key, content: bytes.toString('base64') } });
  const failing = { face: 'storage', action: 'get', payload: { key: 'no/such/key' } };
  const atomic = (requests: unknown[]) => server.post({ face: 'batch', action: 'run', payload: { mode: 'atomic', requests } });
  const blobExists = (digest: string) => blobs.read(digest).then(() => true, () => false);
  const blobRow = (digest: string) => server.db.selectFrom('storage_blobs').selectAll().where('sha256', '=', digest).executeTakeFirst();
  /** The content's row once the batch's rollback has released it (the rollback may end just after the answer). */
  const released = async (digest: string) => {
    for (let tries = 0; tries < 100 && !(await blobRow(digest)); tries++) await sleep(20);
    return blobRow(digest);
  };

  it('collects the content of a put that an atomic batch rolled back', async () => {
    const bytes = randomBytes(200 * 1024);
    const digest = sha256(bytes);
    const aborted = await atomic([put('rolled/back', bytes), failing]);
    expect([aborted.status, aborted.body.error.code, aborted.body.error.details.results.map((r: { outcome: string }) => r.outcome)]).toEqual([
      404,
      'batch_aborted',
      ['succeeded', 'failed'],
    ]);
    expect((await server.post({ face: 'storage', action: 'get', payload: { key: 'rolled/back' } })).status).toBe(404);

    expect(await released(digest)).toMatchObject({ refs: 0, released_at: expect.any(String) });
    // With no grace, content released before now is collected: not in the very millisecond of its release.
    await sleep(5);
    expect(await collectReleasedBlobs(server.db, blobs, 0)).toBeGreaterThanOrEqual(1);
    expect(await blobExists(digest)).toBe(false);
    expect(await blobRow(digest)).toBeUndefined();
  });

  it('keeps content another key holds when a batch that stored it again rolls back', async () => {
    const shared = randomBytes(50 * 1024);
    const unique = randomBytes(60 * 1024);
    expect((await server.post(put('kept/one', shared))).status).toBe(200);
    const aborted = await atomic([put('kept/two', shared), put('kept/three', unique), failing]);
    expect(aborted.body.error.code).toBe('batch_aborted');
    // The batch's rollback has run once the content only it placed is released.
    expect(await released(sha256(unique))).toMatchObject({ refs: 0 });
    expect(await blobRow(sha256(shared))).toMatchObject({ refs: 1, released_at: null });

    await sleep(5);
    await collectReleasedBlobs(server.db, blobs, 0);
    expect(await blobExists(sha256(unique))).toBe(false);
    const read = await server.post({ face: 'storage', action: 'get', payload: { key: 'kept/one' } });
    expect(Buffer.from(read.body.data.content, 'base64').equals(shared)).toBe(true);
  });
});
