/**
 * The storage face over real HTTP, one suite for every backend: files under a directory (on SQLite and on
 * PostgreSQL) and an S3-compatible bucket (s3rver). Round trips inline and through signed URLs; content
 * stored once whatever the number of keys holding it, and kept until the last is deleted; digests; listing
 * in byte order with paging; the size limits and quotas of a tier; expired and altered URLs; partitions;
 * events and usage units.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Catalogue } from '../../src/core/catalogue.js';
import { shippedCatalogue } from '../../src/server/shipped.js';
import type { BlobStore } from '../../src/faces/storage/blob-store.js';
import { collectReleasedBlobs } from '../../src/faces/storage/objects.js';
import { accrueStoredBytes, STORED_BYTES_METER } from '../../src/faces/storage/store.js';
import { STORAGE_BACKENDS } from '../helpers/storage-backends.js';
import { startServer, type TestServer } from '../helpers/server.js';

/** The free tier, made small enough to fill in a test: 4 KiB objects, 6000 bytes per entity. */
const SMALL = { objectBytes: 4096, storedBytes: 6000 };

function smallFreeTier(): Catalogue {
  const catalogue = shippedCatalogue();
  const tiers = catalogue.platform.tiers.map((t) => (t.name === 'free' ? { ...t, storage: SMALL } : t));
  return { ...catalogue, platform: { ...catalogue.platform, tiers } };
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(STORAGE_BACKENDS)('storage on $name', (backend) => {
  let server: TestServer;
  let blobs: BlobStore;
  let closeBackend: () => Promise<void>;

  beforeAll(async () => {
    const started = await backend.start();
    blobs = started.blobs;
    closeBackend = started.close;
    server = await startServer({ postgres: backend.postgres, catalogue: smallFreeTier(), usageFlushMs: 30, storage: started.settings });
  });
  afterAll(async () => {
    await server?.close();
    await closeBackend?.();
  });

  const call = (action: string, payload: unknown, headers: Record<string, string> = {}) => server.post({ face: 'storage', action, payload }, { headers });
  const put = (key: string, bytes: Buffer, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
    call('put', { key, content: bytes.toString('base64'), ...extra }, headers);
  const blobExists = (digest: string) => blobs.read(digest).then(() => true, () => false);
  const blobRow = (digest: string) => server.db.selectFrom('storage_blobs').selectAll().where('sha256', '=', digest).executeTakeFirst();
  /** Signed uploads to S3 become objects once the worker sees them land. */
  const eventually = async (key: string, headers: Record<string, string> = {}) => {
    for (let tries = 0; tries < 100; tries++) {
      const found = await call('get', { key, includeContent: false }, headers);
      if (found.status === 200) return found.body.data.object;
      await sleep(50);
    }
    throw new Error(`${key} never appeared.`);
  };
  const upload = async (key: string, bytes: Buffer, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) => {
    const signed = await call('createUploadUrl', { key, size: bytes.length, ...extra }, headers);
    expect(signed.status).toBe(200);
    const sent = await fetch(signed.body.data.url, { method: 'PUT', headers: signed.body.data.headers, body: new Uint8Array(bytes) });
    expect(sent.status).toBe(200);
    return eventually(key, headers);
  };

  it('stores inline content and reads it back with its size, digests and metadata', async () => {
    const bytes = Buffer.from('hello world');
    const stored = await put('notes/hello.txt', bytes, { contentType: 'text/plain', metadata: { author: 'ada' }, sha256: sha256(bytes) });
    expect(stored.status).toBe(200);
    expect(stored.body.data).toEqual({
      key: 'notes/hello.txt',
      size: 11,
      contentType: 'text/plain',
      sha256: 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9',
      etag: `"${md5(bytes)}"`,
      metadata: { author: 'ada' },
      createdAt: expect.any(String),
    });
    const read = await call('get', { key: 'notes/hello.txt' });
    expect(read.status).toBe(200);
    expect(read.body.data.object).toEqual(stored.body.data);
    expect(Buffer.from(read.body.data.content, 'base64').equals(bytes)).toBe(true);
    expect((await call('get', { key: 'notes/hello.txt', includeContent: false })).body.data.content).toBeUndefined();
    // An empty object is an object too.
    const empty = await put('notes/empty', Buffer.alloc(0));
    expect(empty.body.data).toMatchObject({ size: 0, sha256: sha256(Buffer.alloc(0)), contentType: 'application/octet-stream' });
    expect((await call('get', { key: 'notes/empty' })).body.data.content).toBe('');
  });

  it('refuses content that is not base64 with 400 at the field', async () => {
    for (const content of ['not base64!', 'aGVsbG8', 'aGVs bG8=']) {
      const refused = await call('put', { key: 'notes/invalid', content });
      expect([refused.status, refused.body.error.code, refused.body.error.param]).toEqual([400, 'payload_invalid', '/payload/content']);
    }
    expect((await call('get', { key: 'notes/invalid' })).status).toBe(404);
  });

  it('refuses a key with a control character or U+10FFFF, which bounds prefix listings, and takes other astral characters', async () => {
    for (const key of ['notes/\u0007bell', 'notes/\u{10FFFF}end']) {
      const refused = await call('put', { key, content: 'aGk=' });
      expect([refused.status, refused.body.error.code, refused.body.error.param]).toEqual([400, 'payload_invalid', '/payload/key']);
    }
    expect((await call('put', { key: 'notes/\u{1F600}', content: 'aGk=' })).status).toBe(200);
  });

  it('refuses content that does not match the SHA-256 sent with it', async () => {
    const refused = await put('notes/bad', Buffer.from('abc'), { sha256: sha256(Buffer.from('abd')) });
    expect([refused.status, refused.body.error.code, refused.body.error.param]).toEqual([400, 'checksum_mismatch', '/payload/sha256']);
    expect((await call('get', { key: 'notes/bad' })).status).toBe(404);
  });

  it('keeps the same bytes once under several keys, and until the last key holding them is deleted', async () => {
    const bytes = randomBytes(3000);
    const digest = sha256(bytes);
    expect((await put('same/one', bytes)).status).toBe(200);
    expect((await upload('same/two', bytes)).sha256).toBe(digest);
    expect((await put('same/three', bytes)).status).toBe(200);
    expect(await blobRow(digest)).toMatchObject({ refs: 3 });
    expect(await blobExists(digest)).toBe(true);

    expect((await call('delete', { key: 'same/one' })).body.data).toEqual({ key: 'same/one', deleted: true });
    expect((await call('delete', { key: 'same/two' })).status).toBe(200);
    expect(await collectReleasedBlobs(server.db, blobs, 0)).toBe(0);
    const kept = await call('get', { key: 'same/three' });
    expect(Buffer.from(kept.body.data.content, 'base64').equals(bytes)).toBe(true);

    // Replacing the last key's content releases it; the collector then deletes it.
    expect((await put('same/three', Buffer.from('other'))).status).toBe(200);
    expect(await blobRow(digest)).toMatchObject({ refs: 0 });
    await sleep(5);
    expect(await collectReleasedBlobs(server.db, blobs, 0)).toBeGreaterThanOrEqual(1);
    expect(await blobRow(digest)).toBeUndefined();
    expect(await blobExists(digest)).toBe(false);
    // Stored again after its collection: written anew.
    expect((await put('same/again', bytes)).status).toBe(200);
    expect(await blobExists(digest)).toBe(true);
  });

  it('never loses content a key holds while the same content is released, stored again and collected at once', async () => {
    const bytes = randomBytes(2000);
    let churning = true;
    const churn = async (key: string) => {
      for (let i = 0; i < 25; i++) {
        expect((await put(key, bytes)).status).toBe(200);
        const read = await call('get', { key });
        expect(read.status).toBe(200);
        expect(Buffer.from(read.body.data.content, 'base64').equals(bytes)).toBe(true);
        expect((await call('delete', { key })).status).toBe(200);
      }
      churning = false;
    };
    // Collecting all along: the content is released at every delete, and kept again by the next put.
    const collect = async () => {
      while (churning) await collectReleasedBlobs(server.db, blobs, 0);
    };
    await Promise.all([churn('race/a'), collect(), collect()]);
    expect((await put('race/final', bytes)).status).toBe(200);
    expect(await blobExists(sha256(bytes))).toBe(true);
  });

  it('keeps content stored again while the collector is deleting it: the store waits, then writes it anew', async () => {
    const bytes = randomBytes(1500);
    const digest = sha256(bytes);
    expect((await put('collected/a', bytes)).status).toBe(200);
    expect((await call('delete', { key: 'collected/a' })).status).toBe(200);
    // With no grace, content released before now is collected: not in the very millisecond of its release.
    await sleep(5);
    // A collector that stops inside its transaction, just before deleting the content, until let go.
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    let letGo!: () => void;
    const gate = new Promise<void>((resolve) => (letGo = resolve));
    const paused: BlobStore = Object.assign(Object.create(blobs) as BlobStore, {
      remove: async (sha: string) => {
        entered();
        await gate;
        await blobs.remove(sha);
      },
    });
    const collecting = collectReleasedBlobs(server.db, paused, 0);
    await inside;
    const storing = put('collected/b', bytes);
    await sleep(100);
    letGo();
    expect(await collecting).toBeGreaterThanOrEqual(1);
    expect((await storing).status).toBe(200);
    const read = await call('get', { key: 'collected/b' });
    expect(read.status).toBe(200);
    expect(Buffer.from(read.body.data.content, 'base64').equals(bytes)).toBe(true);
    expect(await blobRow(digest)).toMatchObject({ refs: 1 });
    expect(await blobExists(digest)).toBe(true);
  });

  it('takes concurrent writes and deletes of one key one after another, keeping the stored bytes exact', async () => {
    const contents = Array.from({ length: 8 }, (_, i) => randomBytes(100 + i));
    const writes = contents.map((bytes) => put('contended', bytes));
    const deletes = [call('delete', { key: 'contended' }), call('delete', { key: 'contended' })];
    const answers = await Promise.all([...writes, ...deletes]);
    expect(answers.slice(0, 8).map((a) => a.status)).toEqual(Array(8).fill(200));
    for (const deleted of answers.slice(8)) expect([200, 404]).toContain(deleted.status);
    expect((await put('contended', contents[0]!)).status).toBe(200);
    const usage = await server.db.selectFrom('storage_usage').selectAll().where('mode', '=', 'test').where('entity_id', '=', 'acme').executeTakeFirstOrThrow();
    const objects = await server.db.selectFrom('storage_objects').select(['size']).where('mode', '=', 'test').where('entity_id', '=', 'acme').execute();
    expect([Number(usage.bytes), usage.objects]).toEqual([objects.reduce((sum, o) => sum + Number(o.size), 0), objects.length]);
  });

  it('lists keys in byte order under a prefix, a page at a time', async () => {
    for (const key of ['list/b', 'list/a/2', 'list/a/1', 'list/é', 'list/z', 'lister', 'other/x']) expect((await put(key, Buffer.from(key))).status).toBe(200);
    const keys = (page: any) => page.body.data.items.map((o: any) => o.key);
    const first = await call('list', { prefix: 'list/', limit: 3 });
    expect(keys(first)).toEqual(['list/a/1', 'list/a/2', 'list/b']);
    expect(first.body.data).toMatchObject({ hasMore: true, nextCursor: 'list/b' });
    const second = await call('list', { prefix: 'list/', limit: 3, cursor: first.body.data.nextCursor });
    // UTF-8 byte order, S3's: "é" (C3 A9) after "z" (7A).
    expect(keys(second)).toEqual(['list/z', 'list/é']);
    expect(second.body.data.hasMore).toBe(false);
    expect(second.body.data.nextCursor).toBeUndefined();
    expect(keys(await call('list', { prefix: 'list/a/' }))).toEqual(['list/a/1', 'list/a/2']);
    expect(keys(await call('list', { prefix: 'list' }))).toContain('lister');
    expect(keys(await call('list', { prefix: 'nothing/' }))).toEqual([]);
  });

  it('deletes an object: gone for get, list and a second delete, with an event', async () => {
    expect((await put('gone/x', Buffer.from('x'))).status).toBe(200);
    expect((await call('delete', { key: 'gone/x' })).status).toBe(200);
    const missing = await call('get', { key: 'gone/x' });
    expect([missing.status, missing.body.error.code, missing.body.error.param]).toEqual([404, 'resource_not_found', '/payload/key']);
    expect((await call('delete', { key: 'gone/x' })).status).toBe(404);
    expect((await call('list', { prefix: 'gone/' })).body.data.items).toEqual([]);
    const events = await server.db.selectFrom('events').select(['type', 'data']).where('type', '=', 'storage.object.deleted').execute();
    expect(events.map((e) => JSON.parse(e.data).key)).toContain('gone/x');
  });

  it('uploads through a signed URL and downloads through another', async () => {
    const bytes = randomBytes(700 * 1024);
    const object = await upload('big/file.bin', bytes, { contentType: 'application/x-test', metadata: { kind: 'big' } });
    expect(object).toMatchObject({ key: 'big/file.bin', size: bytes.length, sha256: sha256(bytes), etag: `"${md5(bytes)}"`, contentType: 'application/x-test', metadata: { kind: 'big' } });
    // Over 512 KiB: described, without its content inline.
    const read = await call('get', { key: 'big/file.bin' });
    expect(read.body.data.content).toBeUndefined();

    const link = await call('createDownloadUrl', { key: 'big/file.bin', filename: 'file.bin', expiresIn: 600 });
    expect(link.status).toBe(200);
    expect(link.body.data).toMatchObject({ key: 'big/file.bin', method: 'GET', headers: {} });
    expect(Date.parse(link.body.data.expiresAt) - Date.now()).toBeGreaterThan(590_000);
    const downloaded = await fetch(link.body.data.url);
    expect(downloaded.status).toBe(200);
    expect(downloaded.headers.get('content-type')).toBe('application/x-test');
    expect(downloaded.headers.get('content-disposition')).toContain('filename="file.bin"');
    expect(Buffer.from(await downloaded.arrayBuffer()).equals(bytes)).toBe(true);

    const created = await server.db.selectFrom('events').select('data').where('type', '=', 'storage.object.created').execute();
    expect(created.map((e) => JSON.parse(e.data)).filter((o) => o.key === 'big/file.bin')).toHaveLength(1);
  });

  it('refuses an expired URL with 403', async () => {
    expect((await put('expiring', Buffer.from('soon gone'))).status).toBe(200);
    const link = await call('createDownloadUrl', { key: 'expiring', expiresIn: 1 });
    const signed = await call('createUploadUrl', { key: 'expiring-upload', size: 3, expiresIn: 1 });
    await sleep(2100);
    const late = await fetch(link.body.data.url);
    expect(late.status).toBe(403);
    const lateUpload = await fetch(signed.body.data.url, { method: 'PUT', headers: signed.body.data.headers, body: 'abc' });
    expect(lateUpload.status).toBe(403);
    if (backend.checksSignatures) expect((await late.json()).error).toMatchObject({ type: 'permission_error', code: 'signed_url_invalid' });
    await sleep(200);
    expect((await call('get', { key: 'expiring-upload' })).status).toBe(404);
  });

  it.skipIf(!backend.checksSignatures)('refuses an altered URL, and one used with another method, with 403', async () => {
    expect((await put('private/a', Buffer.from('for a'))).status).toBe(200);
    expect((await put('private/b', Buffer.from('for b'))).status).toBe(200);
    const link = (await call('createDownloadUrl', { key: 'private/a' })).body.data.url as string;
    const refused = async (response: Response) => {
      expect(response.status).toBe(403);
      expect((await response.json()).error).toMatchObject({ type: 'permission_error', code: 'signed_url_invalid' });
    };
    const url = new URL(link);
    url.searchParams.set('key', 'private/b');
    await refused(await fetch(url));
    const otherEntity = new URL(link);
    otherEntity.searchParams.set('entity', 'other');
    await refused(await fetch(otherEntity));
    const longer = new URL(link);
    longer.searchParams.set('expires', String(Number(longer.searchParams.get('expires')) + 3600));
    await refused(await fetch(longer));
    await refused(await fetch(link, { method: 'PUT', body: 'overwrite' }));
    const signed = (await call('createUploadUrl', { key: 'private/c', size: 1 })).body.data;
    await refused(await fetch(signed.url));
    expect((await fetch(link)).status).toBe(200);
  });

  it('refuses objects over the inline limit and over the tier’s largest object with 413', async () => {
    const inline = await put('huge', Buffer.alloc(512 * 1024 + 1));
    expect([inline.status, inline.body.error.code, inline.body.error.param]).toEqual([413, 'payload_too_large', '/payload/content']);
    const free = (await server.key({ tier: 'free', name: 'free' })).secret;
    const asFree = { authorization: `Bearer ${free}`, 'x-entity-id': 'small' };
    const tooBig = await put('big', Buffer.alloc(SMALL.objectBytes + 1), {}, asFree);
    expect([tooBig.status, tooBig.body.error.code]).toEqual([413, 'payload_too_large']);
    const tooBigUrl = await call('createUploadUrl', { key: 'big', size: SMALL.objectBytes + 1 }, asFree);
    expect([tooBigUrl.status, tooBigUrl.body.error.code, tooBigUrl.body.error.param]).toEqual([413, 'payload_too_large', '/payload/size']);
  });

  it('never makes an object of an upload larger than the size signed for', async () => {
    const signed = (await call('createUploadUrl', { key: 'oversent', size: 10 })).body.data;
    const sent = await fetch(signed.url, { method: 'PUT', headers: signed.headers, body: new Uint8Array(11) });
    if (backend.checksSignatures) {
      expect(sent.status).toBe(413);
      expect((await sent.json()).error.code).toBe('payload_too_large');
    }
    await sleep(300);
    expect((await call('get', { key: 'oversent' })).status).toBe(404);
  });

  it('answers 403 quota_exceeded once an entity’s stored bytes would pass its tier’s quota', async () => {
    const free = (await server.key({ tier: 'free', name: 'free' })).secret;
    const asFree = { authorization: `Bearer ${free}`, 'x-entity-id': 'quota' };
    expect((await put('one', randomBytes(3000), {}, asFree)).status).toBe(200);
    expect((await put('two', randomBytes(2500), {}, asFree)).status).toBe(200);
    const full = await put('three', randomBytes(1000), {}, asFree);
    expect([full.status, full.body.error.type, full.body.error.code, full.body.error.details]).toEqual([403, 'permission_error', 'quota_exceeded', { quota: 6000, stored: 5500 }]);
    const fullUrl = await call('createUploadUrl', { key: 'three', size: 1000 }, asFree);
    expect([fullUrl.status, fullUrl.body.error.code]).toEqual([403, 'quota_exceeded']);
    // Replacing an object with a smaller one, or deleting one, makes room.
    expect((await put('one', randomBytes(2000), {}, asFree)).status).toBe(200);
    expect((await put('three', randomBytes(1000), {}, asFree)).status).toBe(200);
    expect((await call('delete', { key: 'two' }, asFree)).status).toBe(200);
    expect((await upload('four', randomBytes(2500), {}, asFree)).size).toBe(2500);
    expect((await call('list', {}, asFree)).body.data.items.map((o: any) => o.key)).toEqual(['four', 'one', 'three']);
  });

  it('keeps each entity’s and each mode’s objects apart', async () => {
    expect((await put('shared/name', Buffer.from('acme’s'))).status).toBe(200);
    const other = { 'x-entity-id': 'other' };
    expect((await call('get', { key: 'shared/name' }, other)).status).toBe(404);
    expect((await call('list', { prefix: 'shared/' }, other)).body.data.items).toEqual([]);
    expect((await call('createDownloadUrl', { key: 'shared/name' }, other)).status).toBe(404);
    expect((await call('delete', { key: 'shared/name' }, other)).status).toBe(404);
    expect((await put('shared/name', Buffer.from('other’s'), {}, other)).status).toBe(200);
    const live = (await server.key({ mode: 'live', name: 'live' })).secret;
    const asLive = { authorization: `Bearer ${live}` };
    expect((await call('get', { key: 'shared/name' }, asLive)).status).toBe(404);
    expect((await call('list', {}, asLive)).body.data.items).toEqual([]);
    const mine = await call('get', { key: 'shared/name' });
    expect(Buffer.from(mine.body.data.content, 'base64').toString()).toBe('acme’s');
  });

  it('counts stored bytes into the storage.storedByteDays meter as the days pass, and keeps callers out of it', async () => {
    const h = { 'x-entity-id': 'meter' };
    expect((await put('m/a', randomBytes(1000), {}, h)).status).toBe(200);
    const p = { mode: 'test' as const, entityId: 'meter' };
    const later = Date.now() + 2 * 86_400_000;
    expect(await accrueStoredBytes(server.db, p, later)).toBeCloseTo(2000, 0);
    // Counted up to then: the same moment again counts nothing.
    expect(await accrueStoredBytes(server.db, p, later)).toBe(0);
    const meter = await server.db.selectFrom('usage_meter_rollups').select(['value']).where('entity_id', '=', 'meter').where('type', '=', STORED_BYTES_METER).execute();
    expect(meter.reduce((sum, r) => sum + Number(r.value), 0)).toBeCloseTo(2000, 0);
    const own = await server.post({ face: 'usage', action: 'ingest', payload: { events: [{ id: 'forged', type: STORED_BYTES_METER, value: 5 }] } }, { headers: h });
    expect(own.body.data.results[0]).toMatchObject({ status: 'invalid' });
  });

  it('records the bytes uploaded as a usage unit', async () => {
    const bytes = randomBytes(1234);
    expect((await put('units/a', bytes)).status).toBe(200);
    expect((await call('createUploadUrl', { key: 'units/b', size: 4321 })).status).toBe(200);
    /** The units of the first usage record of `action` that `wanted` accepts, once it is written. */
    const recorded = async (action: string, wanted: (units: Record<string, number>) => boolean) => {
      for (let tries = 0; tries < 100; tries++) {
        const rows = await server.db.selectFrom('usage_records').select('units').where('face', '=', 'storage').where('action', '=', action).where('entity_id', '=', 'acme').execute();
        const found = rows.map((r) => JSON.parse(r.units) as Record<string, number>).find(wanted);
        if (found) return found;
        await sleep(30);
      }
      return undefined;
    };
    expect(await recorded('put', (u) => u.bytes === 1234)).toBeDefined();
    expect(await recorded('createUploadUrl', (u) => u.bytes === 4321)).toBeDefined();
  });
});
