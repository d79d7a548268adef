/**
 * The files store's signed URLs, served by this server: an upload streamed to disk under the size signed
 * for, the JSON body limit aside (refused with 413 as soon as it passes it, with or without a Content-Length), one that ends short,
 * one cut off by its sender (no object, no temporary file left, the URL still usable), an upload URL used
 * twice, and downloads that never run stored pages on the API's origin. Also URLs signed before a rotation
 * of the secret key.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUrl, verifyUrl } from '../../src/faces/storage/signed-urls.js';
import { useSecretKeys } from '../../src/store/sealed.js';
import { startServer, type TestServer } from '../helpers/server.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('signed URLs of the files store', () => {
  let server: TestServer;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dispatch-storage-'));
    server = await startServer({ storage: { dir } });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = (action: string, payload: unknown) => server.post({ face: 'storage', action, payload });
  const uploadUrl = async (key: string, size: number) => (await call('createUploadUrl', { key, size })).body.data.url as string;
  const temporaryFiles = () => readdirSync(join(dir, 'tmp'));

  /** Sends `chunks` as a chunked body (no Content-Length), pausing between them; `cut` ends the connection instead of the body. */
  function sendChunked(url: string, chunks: Buffer[], cut = false): Promise<{ status: number; body: string } | 'cut'> {
    return new Promise((resolve, reject) => {
      const req = request(url, { method: 'PUT', headers: { 'transfer-encoding': 'chunked' } }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (d: string) => (body += d)).on('end', () => resolve({ status: res.statusCode!, body }));
      });
      req.on('error', (error) => (cut ? resolve('cut') : reject(error)));
      void (async () => {
        for (const chunk of chunks) {
          if (req.destroyed) return;
          req.write(chunk);
          await sleep(20);
        }
        if (cut) {
          req.destroy();
          resolve('cut');
        } else req.end();
      })();
    });
  }

  it('refuses with 413 an upload whose chunked body passes the size signed for, while it streams', async () => {
    const url = await uploadUrl('chunked/over', 1000);
    const answer = await sendChunked(url, [randomBytes(600), randomBytes(600), randomBytes(600)]);
    expect(answer).not.toBe('cut');
    const { status, body } = answer as { status: number; body: string };
    expect(status).toBe(413);
    expect(JSON.parse(body).error).toMatchObject({ type: 'invalid_request_error', code: 'payload_too_large', details: { limit: 1000 } });
    expect((await call('get', { key: 'chunked/over' })).status).toBe(404);
  });

  it('refuses with 413 at once an upload whose Content-Length passes the size signed for', async () => {
    const sent = await fetch(await uploadUrl('declared/over', 10), { method: 'PUT', body: 'x'.repeat(11) });
    expect(sent.status).toBe(413);
    expect((await sent.json()).error.code).toBe('payload_too_large');
  });

  it('receives a chunked upload of exactly the size signed for', async () => {
    const parts = [randomBytes(700), randomBytes(300)];
    const answer = (await sendChunked(await uploadUrl('chunked/exact', 1000), parts)) as { status: number; body: string };
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ key: 'chunked/exact', size: 1000 });
    const read = await call('get', { key: 'chunked/exact' });
    expect(Buffer.from(read.body.data.content, 'base64').equals(Buffer.concat(parts))).toBe(true);
  });

  it('answers 400 upload_incomplete to an upload shorter than the size signed for, and takes the rest later', async () => {
    const url = await uploadUrl('short', 10);
    const short = await fetch(url, { method: 'PUT', body: 'abc' });
    expect(short.status).toBe(400);
    expect((await short.json()).error).toMatchObject({ code: 'upload_incomplete', details: { size: 10, received: 3 } });
    expect((await call('get', { key: 'short' })).status).toBe(404);
    expect((await fetch(url, { method: 'PUT', body: '0123456789' })).status).toBe(200);
  });

  it('leaves no object and no temporary file when the sender goes away mid-upload, and the URL still works', async () => {
    const url = await uploadUrl('cut/off', 3000);
    expect(await sendChunked(url, [randomBytes(1000), randomBytes(1000)], true)).toBe('cut');
    for (let tries = 0; tries < 50 && temporaryFiles().length > 0; tries++) await sleep(20);
    expect(temporaryFiles()).toEqual([]);
    expect((await call('get', { key: 'cut/off' })).status).toBe(404);
    expect((await fetch(url, { method: 'PUT', body: new Uint8Array(randomBytes(3000)) })).status).toBe(200);
    expect((await call('get', { key: 'cut/off', includeContent: false })).body.data.object.size).toBe(3000);
  });

  it('receives an upload larger than the JSON body limit (1 MiB)', async () => {
    const bytes = randomBytes(3 * 1024 * 1024);
    const sent = await fetch(await uploadUrl('large/three-mib.bin', bytes.length), { method: 'PUT', body: new Uint8Array(bytes) });
    expect(sent.status).toBe(200);
    expect(await sent.json()).toMatchObject({ key: 'large/three-mib.bin', size: bytes.length });
    const link = (await call('createDownloadUrl', { key: 'large/three-mib.bin' })).body.data.url;
    expect(Buffer.from(await (await fetch(link)).arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('takes one upload per URL', async () => {
    const url = await uploadUrl('once', 3);
    expect((await fetch(url, { method: 'PUT', body: 'one' })).status).toBe(200);
    const again = await fetch(url, { method: 'PUT', body: 'two' });
    expect(again.status).toBe(403);
    expect((await again.json()).error.code).toBe('signed_url_invalid');
    expect(Buffer.from((await call('get', { key: 'once' })).body.data.content, 'base64').toString()).toBe('one');
  });

  it('serves a stored page as a download, sandboxed, never as a page of the API’s origin', async () => {
    const page = '<script>alert(1)</script>';
    await call('put', { key: 'pages/evil.html', content: Buffer.from(page).toString('base64'), contentType: 'text/html' });
    const link = (await call('createDownloadUrl', { key: 'pages/evil.html' })).body.data.url;
    const served = await fetch(link);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-disposition')).toContain('attachment; filename="evil.html"');
    expect(served.headers.get('content-security-policy')).toContain('sandbox');
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    // Revalidation by ETag.
    const again = await fetch(link, { headers: { 'if-none-match': served.headers.get('etag')! } });
    expect(again.status).toBe(304);
  });

  it('refuses a download URL whose object was deleted with 404, and a HEAD with 403 (it is signed for GET)', async () => {
    await call('put', { key: 'soon', content: Buffer.from('x').toString('base64') });
    const link = (await call('createDownloadUrl', { key: 'soon' })).body.data.url;
    expect((await fetch(link, { method: 'HEAD' })).status).toBe(403);
    await call('delete', { key: 'soon' });
    const gone = await fetch(link);
    expect(gone.status).toBe(404);
    expect((await gone.json()).error.code).toBe('resource_not_found');
  });
});

describe('signing keys', () => {
  it('verifies what a previous key signed, until that key is dropped', () => {
    const first = randomBytes(32);
    const second = randomBytes(32);
    useSecretKeys(first);
    const url = new URL(signUrl('http://x', 'GET', { key: 'k' }, new Date(Date.now() + 60_000)));
    const query = Object.fromEntries(url.searchParams);
    expect(verifyUrl('GET', query)).toMatchObject({ key: 'k' });
    useSecretKeys(second, [first]);
    expect(verifyUrl('GET', query)).toMatchObject({ key: 'k' });
    useSecretKeys(second);
    expect(() => verifyUrl('GET', query)).toThrow(/altered/);
  });
});
