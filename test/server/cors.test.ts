/**
 * Cross-origin access over real HTTP: the OpenAPI document and the docs are readable from any origin; the API
 * paths and the signed storage URLs answer, preflights included, only the origins CORS_ORIGINS names, and expose
 * the headers a page needs.
 * With PUBLIC_URL, error docUrls are absolute.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corsOrigins } from '../../src/server/cors.js';
import { generateCall, startServer, type TestServer } from '../helpers/server.js';

const APP = 'https://app.example.com';
const preflight = (server: TestServer, path: string, origin: string) =>
  fetch(server.url + path, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type,x-entity-id' } });

describe('without CORS_ORIGINS', () => {
  let server: TestServer;
  beforeAll(async () => (server = await startServer()));
  afterAll(() => server.close());

  it('lets any origin read the OpenAPI document and the docs, and no origin call the API', async () => {
    const doc = await fetch(`${server.url}/openapi.json`, { headers: { origin: APP } });
    expect(doc.headers.get('access-control-allow-origin')).toBe('*');
    expect((await fetch(`${server.url}/docs/index.md`, { headers: { origin: APP } })).headers.get('access-control-allow-origin')).toBe('*');
    const call = await server.post(generateCall(), { headers: { origin: APP } });
    expect(call.status).toBe(200);
    expect(call.headers.get('access-control-allow-origin')).toBeNull();
    const asked = await preflight(server, '/do', APP);
    expect([asked.status, asked.headers.get('access-control-allow-origin'), asked.headers.get('access-control-allow-methods')]).toEqual([204, null, null]);
  });
});

describe('with CORS_ORIGINS', () => {
  let server: TestServer;
  beforeAll(async () => (server = await startServer({ corsOrigins: corsOrigins(`${APP}/, https://other.example.com`), publicUrl: 'https://example.com/api/' })));
  afterAll(() => server.close());

  it.each(['/do', '/do/ai.generate', '/2026-09-01/do'])('answers the preflight of %s from a listed origin, and refuses another', async (path) => {
    const allowed = await preflight(server, path, APP);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(APP);
    expect(allowed.headers.get('access-control-allow-methods')).toBe('POST');
    expect(allowed.headers.get('access-control-allow-headers')).toContain('X-Idempotency-Key');
    expect(allowed.headers.get('vary')).toContain('Origin');
    expect((await preflight(server, path, 'https://evil.example.com')).headers.get('access-control-allow-origin')).toBeNull();
  });

  it('lets a listed origin read the answer and its headers, errors included', async () => {
    const { face: _f, action: _a, ...body } = generateCall();
    const call = await server.post(body, { path: '/do/ai.generate', headers: { origin: APP } });
    expect(call.status).toBe(200);
    expect(call.headers.get('access-control-allow-origin')).toBe(APP);
    expect(call.headers.get('access-control-expose-headers')).toContain('Request-Id');
    const refused = await server.post({ face: 'nope', action: 'x', payload: {} }, { headers: { origin: APP } });
    expect([refused.status, refused.headers.get('access-control-allow-origin')]).toEqual([404, APP]);
    // With PUBLIC_URL, the docUrl a page (or a log) shows is a link that works anywhere.
    expect(refused.body.error.docUrl).toBe('https://example.com/api/docs/errors#face_not_found');
  });

  it('lets a listed origin read a streamed answer too, and an answer on a path whose version is not a date', async () => {
    const streamed = await fetch(`${server.url}/do`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.adminKey}`, 'x-entity-id': 'acme', 'content-type': 'application/json', accept: 'text/event-stream', origin: APP },
      body: JSON.stringify(generateCall()),
    });
    expect(streamed.headers.get('content-type')).toContain('text/event-stream');
    expect(streamed.headers.get('access-control-allow-origin')).toBe(APP);
    expect(streamed.headers.get('access-control-expose-headers')).toContain('Request-Id');
    await streamed.text();
    const versioned = await server.post(generateCall(), { path: '/v1/do', headers: { origin: APP } });
    expect([versioned.status, versioned.headers.get('access-control-allow-origin')]).toEqual([400, APP]);
    const other = await server.post(generateCall(), { headers: { origin: 'https://evil.example.com' } });
    expect([other.headers.get('access-control-allow-origin'), other.headers.get('vary')]).toEqual([null, 'Origin']);
  });

  it('lets a listed origin upload to and download from a signed URL, preflight included', async () => {
    const call = (action: string, payload: unknown) => server.post({ face: 'storage', action, payload });
    const signed = (await call('createUploadUrl', { key: 'pages/note.txt', size: 5, contentType: 'text/plain' })).body.data;
    // PUBLIC_URL names another host: the URL's path and signature are what this server reads.
    const here = (url: string) => `${server.url}${new URL(url).pathname.replace(/^\/api/, '')}${new URL(url).search}`;
    const asked = await fetch(here(signed.url), {
      method: 'OPTIONS',
      headers: { origin: APP, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'content-type' },
    });
    expect([asked.status, asked.headers.get('access-control-allow-origin'), asked.headers.get('access-control-allow-methods')]).toEqual([204, APP, 'GET, PUT']);
    expect(asked.headers.get('access-control-allow-headers')).toContain('Content-Type');
    const sent = await fetch(here(signed.url), { method: 'PUT', headers: { ...signed.headers, origin: APP }, body: 'hello' });
    expect([sent.status, sent.headers.get('access-control-allow-origin')]).toEqual([200, APP]);
    expect(sent.headers.get('access-control-expose-headers')).toContain('ETag');
    const download = (await call('createDownloadUrl', { key: 'pages/note.txt' })).body.data;
    const read = await fetch(here(download.url), { headers: { origin: APP } });
    expect([read.status, await read.text(), read.headers.get('access-control-allow-origin')]).toEqual([200, 'hello', APP]);
    const elsewhere = await fetch(here(download.url), { headers: { origin: 'https://evil.example.com' } });
    expect([elsewhere.headers.get('access-control-allow-origin'), elsewhere.headers.get('vary')]).toEqual([null, 'Origin']);
    // A copy cached for a request without Origin must not be handed to a page.
    expect((await fetch(here(download.url))).headers.get('vary')).toBe('Origin');
  });

  it('reads CORS_ORIGINS as a list, or any origin for *', () => {
    expect(corsOrigins(undefined)).toEqual([]);
    expect(corsOrigins(' https://a.example/ ,https://b.example ')).toEqual(['https://a.example', 'https://b.example']);
    expect(corsOrigins('https://a.example,*')).toBe('*');
  });
});
