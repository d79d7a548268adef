/**
 * Starts the real server on a free port over a fresh SQLite store in a temporary directory, with keys
 * made straight in the store, and gives tests a small `post` helper for raw HTTP calls.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Providers } from '../../src/providers/index.js';
import { testTextModel } from '../../src/providers/test-model.js';
import type { RateLimiter } from '../../src/runtime/rate-limit/limiter.js';
import { MemoryRateLimiter } from '../../src/runtime/rate-limit/memory.js';
import { buildServer } from '../../src/runtime/server.js';
import { createKey, type NewKey } from '../../src/store/keys.js';
import { openStore } from '../../src/store/open.js';
import type { Db } from '../../src/store/schema.js';

export interface TestServer {
  url: string;
  db: Db;
  /** A test-mode key with every scope and entity. */
  adminKey: string;
  key(input: Partial<NewKey>): Promise<{ id: string; secret: string }>;
  post(body: unknown, options?: { headers?: Record<string, string>; path?: string; raw?: string }): Promise<Reply>;
  close(): Promise<void>;
}

export interface Reply {
  status: number;
  headers: Headers;
  body: any;
}

export async function startServer(
  options: { providers?: Partial<Providers['ai']>; keyCacheTtlMs?: number; limiter?: RateLimiter } = {},
): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'dispatch-test-'));
  const db = await openStore({ dataDir: dir });
  const limiter = options.limiter ?? new MemoryRateLimiter();
  const app = await buildServer({
    db,
    providers: { ai: { test: testTextModel, ...options.providers } },
    limiter,
    keyCacheTtlMs: options.keyCacheTtlMs ?? 2000,
    serverVersion: '0.0.0-test',
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const key = async (input: Partial<NewKey>) => {
    const { record, secret } = await createKey(db, { mode: 'test', scopes: ['*'], entities: '*', tier: 'enterprise', ...input });
    return { id: record.id, secret };
  };
  const adminKey = (await key({ name: 'admin' })).secret;
  const post: TestServer['post'] = async (body, o = {}) => {
    const response = await fetch(url + (o.path ?? '/do'), {
      method: 'POST',
      headers: { authorization: `Bearer ${adminKey}`, 'x-entity-id': 'acme', 'content-type': 'application/json', ...o.headers },
      body: o.raw ?? JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Non-JSON bodies are returned as text for the test to inspect.
    }
    return { status: response.status, headers: response.headers, body: parsed };
  };
  return {
    url,
    db,
    adminKey,
    key,
    post,
    async close() {
      await app.close();
      await limiter.close();
      await db.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A minimal valid call. */
export const generateCall = (payload: Record<string, unknown> = {}) => ({
  face: 'ai',
  action: 'generate',
  payload: { model: 'test-model', prompt: 'Say hello', ...payload },
});
