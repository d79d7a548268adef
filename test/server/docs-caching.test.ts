/**
 * How `/openapi.json`, the reference page, Redoc's bundle and the docs go out (docs/contract.md § Endpoints):
 * brotli or gzip as Accept-Encoding asks, each decompressing to the very bytes of the plain body; a strong
 * ETag per encoding, which sent back in If-None-Match gets a 304 without a body; Cache-Control and
 * Vary: Accept-Encoding on every answer.
 */
import { request, type IncomingHttpHeaders } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chooseCoding } from '../../src/core/fixed-body.js';
import { startServer, type TestServer } from '../helpers/server.js';

interface Raw {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A GET whose body is kept as it came over the wire (fetch would decompress it). */
function get(url: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const sent = request(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }));
    });
    sent.on('error', reject).end();
  });
}

const DECODE = { br: brotliDecompressSync, gzip: gunzipSync } as const;

let server: TestServer;
let twin: TestServer;
beforeAll(async () => {
  [server, twin] = await Promise.all([startServer({ publicUrl: 'https://api.example.com' }), startServer({ publicUrl: 'https://api.example.com' })]);
});
afterAll(async () => {
  await Promise.all([server?.close(), twin?.close()]);
});

describe('the documents and the reference page', () => {
  // The largest share the compressed body may have of the plain one, per path.
  it.each([
    ['/openapi.json', 0.1],
    ['/docs/redoc.standalone.js', 0.35],
    ['/docs', 0.9],
    ['/docs/reference.js', 0.9],
    ['/docs/page.css', 0.6],
    ['/docs/errors', 0.2],
    ['/docs/errors.md', 0.25],
    ['/docs/faces/billing', 0.2],
  ])('%s is sent compressed, with an ETag that gets a 304', async (path, share) => {
    const plain = await get(`${server.url}${path}`);
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers['cache-control']).toMatch(/^(no-cache|public, max-age=\d+)$/);
    expect(plain.headers.vary).toContain('Accept-Encoding');
    const etags = new Set([plain.headers.etag]);
    for (const coding of ['br', 'gzip'] as const) {
      const packed = await get(`${server.url}${path}`, { 'accept-encoding': coding });
      expect(packed.headers['content-encoding']).toBe(coding);
      expect(packed.headers.vary).toContain('Accept-Encoding');
      expect(packed.body.length).toBeLessThan(plain.body.length * share);
      expect(DECODE[coding](packed.body).equals(plain.body)).toBe(true);
      const etag = packed.headers.etag!;
      expect(etag).toMatch(/^"[\w-]+"$/);
      etags.add(etag);
      const again = await get(`${server.url}${path}`, { 'accept-encoding': coding, 'if-none-match': etag });
      expect([again.status, again.body.length, again.headers.etag, again.headers.vary]).toEqual([304, 0, etag, packed.headers.vary]);
      // Another encoding's tag names other bytes: the answer is the whole body.
      expect((await get(`${server.url}${path}`, { 'accept-encoding': coding, 'if-none-match': plain.headers.etag! })).status).toBe(200);
    }
    expect(etags.size).toBe(3);
    expect((await get(`${server.url}${path}`, { 'if-none-match': plain.headers.etag! })).status).toBe(304);
  });

  it('names the same bytes by the same ETag in every process', async () => {
    for (const path of ['/openapi.json', '/docs/errors']) {
      const [one, other] = await Promise.all([get(`${server.url}${path}`, { 'accept-encoding': 'br' }), get(`${twin.url}${path}`, { 'accept-encoding': 'br' })]);
      expect(one.headers.etag).toBe(other.headers.etag);
    }
  });

  it('answers a browser with the most wanted encoding it accepts', async () => {
    const browser = await get(`${server.url}/openapi.json`, { 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect(browser.headers['content-encoding']).toBe('br');
    expect(JSON.parse(brotliDecompressSync(browser.body).toString('utf8')).servers).toEqual([{ url: 'https://api.example.com', description: 'A Unified Dispatch server.' }]);
  });
});

describe('chooseCoding', () => {
  it.each([
    [undefined, undefined],
    ['', undefined],
    ['gzip, deflate, br', 'br'],
    ['BR', 'br'],
    ['gzip;q=0.8, br;q=0.5', 'gzip'],
    ['br;q=0, *', 'gzip'],
    ['*;q=0.5', 'br'],
    ['*;q=0', undefined],
    ['deflate, zstd', undefined],
    ['identity', undefined],
    ['gzip;q=0.5, identity', undefined],
    ['gzip, identity;q=0', 'gzip'],
    ['gzip;q=nonsense, br;q=0.1', 'br'],
  ])('reads %j as %s', (header, coding) => {
    expect(chooseCoding(header)).toBe(coding);
  });
});
