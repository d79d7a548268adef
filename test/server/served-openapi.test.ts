/**
 * The OpenAPI document a server serves names that server (docs/contract.md § Endpoints): PUBLIC_URL, else the
 * address it listens on, in `servers` and in every sample `/docs` shows, whatever `Host` a request sends. Every
 * 401 carries a `WWW-Authenticate: Bearer` challenge (docs/contract.md § Errors).
 */
import { createServer, request } from 'node:http';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listeningOrigin } from '../../src/server/served-openapi.js';
import { ROOT } from '../helpers/process.js';
import { startServer, type TestServer } from '../helpers/server.js';

interface Served {
  servers: { url: string; variables?: unknown }[];
  paths: Record<string, Record<string, { 'x-codeSamples'?: { source: string }[] }>>;
}

/** GET /openapi.json with the given Host header (fetch will not send one of our choosing). */
function document(url: string, host?: string): Promise<Served> {
  return new Promise((resolve, reject) => {
    const get = request(`${url}/openapi.json`, { headers: host ? { Host: host } : {} }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve(JSON.parse(text) as Served));
    });
    get.on('error', reject).end();
  });
}

const samples = (doc: Served) => Object.values(doc.paths).flatMap((ops) => Object.values(ops).flatMap((op) => op['x-codeSamples'] ?? [])).map((s) => s.source);

let listening: TestServer;
let public_: TestServer;
beforeAll(async () => {
  [listening, public_] = await Promise.all([startServer({ metricsToken: 'scrape-token' }), startServer({ publicUrl: 'https://api.example.com/dispatch/' })]);
});
afterAll(async () => {
  await Promise.all([listening?.close(), public_?.close()]);
});

describe('GET /openapi.json', () => {
  it('names PUBLIC_URL in servers and in every code sample, whatever Host the request sends', async () => {
    for (const doc of [await document(public_.url), await document(public_.url, 'evil.example:666'), await document(public_.url)]) {
      expect(doc.servers).toEqual([{ url: 'https://api.example.com/dispatch', description: 'A Unified Dispatch server.' }]);
      const all = samples(doc);
      expect(all.length).toBeGreaterThan(100);
      expect(all.filter((s) => !s.includes('https://api.example.com/dispatch/do') && !s.includes("baseUrl: 'https://api.example.com/dispatch'"))).toEqual([]);
      expect(JSON.stringify(doc)).not.toMatch(/localhost:8787|evil\.example/);
    }
  });

  it('without PUBLIC_URL names the address the server listens on, and a Host header does not change it', async () => {
    const poisoned = await document(listening.url, 'evil.example:666');
    const plain = await document(listening.url);
    expect(plain).toEqual(poisoned);
    expect(plain.servers).toEqual([{ url: listening.url, description: 'A Unified Dispatch server.' }]);
    expect(samples(plain).every((s) => s.includes(listening.url))).toBe(true);
    expect(JSON.stringify(plain)).not.toMatch(/localhost:8787|evil\.example/);
  });

  it('leaves the committed document as the generator wrote it', () => {
    const committed = JSON.parse(readFileSync(`${ROOT}generated/openapi.json`, 'utf8')) as Served;
    expect(committed.servers[0]).toMatchObject({ url: '{origin}', variables: { origin: { default: 'http://localhost:8787' } } });
  });

  it('names this machine when the server listens on every interface', async () => {
    const server = createServer().listen(0, '0.0.0.0');
    await new Promise((r) => server.once('listening', r));
    try {
      expect(listeningOrigin(server)).toBe(`http://localhost:${(server.address() as { port: number }).port}`);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

describe('a 401', () => {
  it('carries WWW-Authenticate: Bearer, with error="invalid_token" when a key was sent and refused', async () => {
    const revoked = await listening.key({});
    await listening.post({ face: 'keys', action: 'revoke', payload: { id: revoked.id } });
    const call = { face: 'ai', action: 'models', payload: {} };
    const cases = [
      [{ authorization: '' }, '/do', 'api_key_missing', 'Bearer'],
      [{ authorization: 'Bearer sk_test_nope' }, '/do', 'api_key_invalid', 'Bearer error="invalid_token"'],
      [{ authorization: `Bearer sk_test_${'x'.repeat(40)}` }, '/do/ai.models', 'api_key_invalid', 'Bearer error="invalid_token"'],
      [{ authorization: `Bearer ${revoked.secret}` }, '/do', 'api_key_revoked', 'Bearer error="invalid_token"'],
    ] as const;
    for (const [headers, path, code, challenge] of cases) {
      const reply = await listening.post(path === '/do' ? call : { payload: {} }, { headers, path });
      expect([reply.status, reply.body.error.code, reply.headers.get('www-authenticate')]).toEqual([401, code, challenge]);
    }
    const metrics = await fetch(`${listening.url}/metrics`, { headers: { authorization: 'Bearer wrong' } });
    expect([metrics.status, metrics.headers.get('www-authenticate')]).toEqual([401, 'Bearer error="invalid_token"']);
    // A face's own 401 (a wrong password) is challenged too, as every 401 must be; a success is not.
    const login = await listening.post({ face: 'auth', action: 'login', payload: { email: 'nobody@example.com', password: 'whatever1' } });
    expect([login.status, login.headers.get('www-authenticate')]).toEqual([401, 'Bearer']);
    const ok = await listening.post(call);
    expect([ok.status, ok.headers.get('www-authenticate')]).toEqual([200, null]);
  });
});
