/**
 * Starts the real server on a free port over a fresh store (SQLite in a temporary directory, or a fresh
 * PostgreSQL database) or over one the test brings, with keys made straight in the store, and gives tests a
 * small `post` helper for raw HTTP calls.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Providers } from '../../src/providers/index.js';
import type { Catalogue } from '../../src/core/catalogue.js';
import type { HttpLimits } from '../../src/server/http-limits.js';
import { sandboxProcessor } from '../../src/providers/payments/sandbox.js';
import { TEST_MODELS, type ModelInfo } from '../../src/providers/model-list.js';
import { testEmbeddingModel } from '../../src/providers/test-embeddings.js';
import { testTextModel } from '../../src/providers/test-model.js';
import type { RateLimiter } from '../../src/server/rate-limit/limiter.js';
import type { WebhookSettings } from '../../src/faces/webhooks/settings.js';
import { createTestDatabase } from './postgres.js';
import { MemoryRateLimiter } from '../../src/server/rate-limit/memory.js';
import { buildServer } from '../../src/server/server.js';
import { shippedCatalogue } from '../../src/server/shipped.js';
import { createKey, type NewKey } from '../../src/store/keys.js';
import { openStore } from '../../src/store/open.js';
import { moduleMigrations } from '../../src/core/face-module.js';
import type { BillingSettings } from '../../src/faces/billing/settings.js';
import type { PaymentsSettings } from '../../src/faces/payments/settings.js';
import type { EmailSettings } from '../../src/faces/email/settings.js';
import type { MailTransport } from '../../src/providers/smtp.js';
import type { Db } from '../../src/store/schema.js';
import type { StorageSettings } from '../../src/faces/storage/settings.js';

export interface TestServer {
  url: string;
  db: Db;
  /** The PostgreSQL database, when the server runs on one (for a second store on it, as another process). */
  databaseUrl?: string;
  /** A test-mode key with every scope and entity. */
  adminKey: string;
  /** The Fastify app: `app.inject` reaches its routes without the call lane in front of them. */
  app: FastifyInstance;
  key(input: Partial<NewKey>): Promise<{ id: string; secret: string }>;
  post(body: unknown, options?: { headers?: Record<string, string>; path?: string; raw?: string }): Promise<Reply>;
  close(): Promise<void>;
}

export interface Reply {
  status: number;
  headers: Headers;
  body: any;
}

export interface TestServerOptions {
  /** What the server serves; the shipped catalogue (generated/) by default. */
  catalogue?: Catalogue;
  providers?: Partial<Providers['ai']>;
  /** The live embedding model (an OpenAI-compatible client pointed at a local server), or another test one. */
  embeddings?: Partial<Providers['embeddings']>;
  /** What `ai.models` lists; by default the test model's names in test mode, and nothing (503) in live mode. */
  aiModels?: { live: readonly ModelInfo[] };
  /** The live payment processor (a Stripe client pointed at a local server), or another sandbox. */
  payments?: Partial<Providers['payments']>;
  keyCacheTtlMs?: number;
  /** Past this many tools, `/mcp` lists the meta tools (40 unless given). */
  mcpToolLimit?: number;
  /** How long idempotency records are kept (s); a day unless given. */
  idempotencyTtlSeconds?: number;
  limiter?: RateLimiter;
  /** Runs on a fresh PostgreSQL database instead of SQLite. */
  postgres?: boolean;
  /** Serves this store (migrated as it opens) instead of a fresh one; the test keeps it and removes it. */
  store?: { dataDir: string; databaseUrl?: string };
  /** Webhook settings; by default private URLs are allowed (receivers listen on 127.0.0.1) and retries come fast. */
  webhooks?: Partial<WebhookSettings>;
  /** Runs the delivery worker in the server (`webhooks.worker`); on unless false. */
  webhookWorker?: boolean;
  streamPingMs?: number;
  streamStallMs?: number;
  http?: HttpLimits;
  metricsToken?: string;
  corsOrigins?: '*' | string[];
  publicUrl?: string;
  usageFlushMs?: number;
  /** Where storage keeps content: files in the test's directory, landed uploads looked for every 50 ms, by default. */
  storage?: Partial<StorageSettings>;
  /** The billing period closer; on with its defaults unless given. */
  billing?: Partial<BillingSettings>;
  /** The payments reconciler; on with its defaults (which leave anything in flight alone for minutes) unless given. */
  reconciler?: Partial<PaymentsSettings>;
  /** Live e-mail (an SMTP transport to a local server), and the mail queue's settings. */
  mail?: MailTransport;
  email?: Partial<EmailSettings>;
  /** The clock by which API versions take effect; the real one unless given. */
  now?: () => number;
}

/** Webhook settings for tests: receivers on 127.0.0.1, retries within a second. */
export const TEST_WEBHOOKS: WebhookSettings = {
  retryOffsetsMs: { live: [150, 450], test: [150, 450] },
  timeoutMs: 1000,
  allowPrivateUrls: true,
  concurrency: 8,
  pollMs: 50,
  worker: true,
};

export async function startServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'dispatch-test-'));
  const database = options.postgres && !options.store ? await createTestDatabase() : undefined;
  const catalogue = options.catalogue ?? shippedCatalogue();
  const db = await openStore({ ...(options.store ?? { dataDir: dir, ...(database ? { databaseUrl: database.url } : {}) }), migrations: moduleMigrations(catalogue.modules) });
  const databaseUrl = database?.url ?? options.store?.databaseUrl;
  const limiter = options.limiter ?? new MemoryRateLimiter();
  const app = await buildServer(catalogue, {
    db,
    providers: {
      ai: { test: testTextModel, ...options.providers },
      embeddings: { test: testEmbeddingModel, ...options.embeddings },
      payments: { test: sandboxProcessor, ...options.payments },
      email: options.mail ? { live: options.mail } : {},
    },
    aiModels: { test: TEST_MODELS, ...options.aiModels },
    limiter,
    keyCacheTtlMs: options.keyCacheTtlMs ?? 2000,
    serverVersion: '0.0.0-test',
    ...(options.streamPingMs !== undefined ? { streamPingMs: options.streamPingMs } : {}),
    ...(options.streamStallMs !== undefined ? { streamStallMs: options.streamStallMs } : {}),
    ...(options.http ? { http: options.http } : {}),
    ...(options.metricsToken ? { metricsToken: options.metricsToken } : {}),
    ...(options.mcpToolLimit !== undefined ? { mcpToolLimit: options.mcpToolLimit } : {}),
    ...(options.corsOrigins ? { corsOrigins: options.corsOrigins } : {}),
    ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
    // Laid over each module's defaults, as a server started with no variables set reads them.
    settings: {
      webhooks: { ...TEST_WEBHOOKS, ...options.webhooks, ...(options.webhookWorker !== undefined ? { worker: options.webhookWorker } : {}) },
      ...(options.billing ? { billing: options.billing } : {}),
      ...(options.email ? { email: options.email } : {}),
      ...(options.reconciler ? { payments: options.reconciler } : {}),
      ...(options.usageFlushMs !== undefined ? { usage: { flushMs: options.usageFlushMs } } : {}),
      storage: { dir: join(dir, 'storage'), worker: { pollMs: 50, gcGraceMs: 0 }, ...options.storage },
    },
    ...(options.idempotencyTtlSeconds !== undefined ? { idempotencyTtlSeconds: options.idempotencyTtlSeconds } : {}),
    ...(options.now ? { now: options.now } : {}),
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
    ...(databaseUrl ? { databaseUrl } : {}),
    adminKey,
    app,
    key,
    post,
    async close() {
      await app.close();
      await limiter.close();
      await db.destroy();
      await database?.drop();
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
