/**
 * The HTTP server: `POST /do`, `POST /{version}/do` and `POST /do/{face}.{action}` run the call pipeline, answering JSON or, for a
 * streaming call, server-sent events; `/healthz`, `/readyz`, `/metrics`, `/openapi.json` and `/docs/*` serve the rest, and
 * the face modules their own routes (the usage dashboard, storage's signed URLs). Unless told otherwise it also runs the face modules' background work (their settings say which
 * they leave to `dispatch worker`). Every error, the HTTP layer's own included (bad JSON, wrong
 * content type, body too large, unknown path), leaves in the error envelope of docs/contract.md § Errors.
 */
import type { FastifyInstance } from 'fastify';
import type { Providers } from '../providers/index.js';
import { TEST_MODELS } from '../providers/model-list.js';
import { commitGroupOf } from '../store/commit-group.js';
import { eventLogFiller } from '../store/event-log-fill.js';
import type { Db } from '../store/schema.js';
import type { AfterAnswer } from './call.js';
import type { HandlerSettings } from '../core/context.js';
import type { Catalogue } from '../core/catalogue.js';
import { handlerTable } from './handler-table.js';
import { startModules } from './modules.js';
import { KeyCache } from './key-cache.js';
import { registerCallRoutes } from './call-routes.js';
import { registerMcpRoutes } from './mcp/mcp-routes.js';
import { registerCors } from './cors.js';
import { createHttpApp } from './http-app.js';
import { registerDocumentRoutes, registerOpsRoutes } from './ops-routes.js';
import { retentionPurge } from './purge.js';
import { registerReferenceRoutes } from './reference-routes.js';
import { createMetrics } from './metrics.js';
import type { RateLimiter } from './rate-limit/limiter.js';
import type { Runtime } from './runtime.js';
import { DEFAULT_HTTP_LIMITS, type HttpLimits } from './http-limits.js';
import { DEFAULT_STREAM_LIMITS, type StreamLimits } from './sse.js';
import { log } from '../core/log.js';
import { versionInForceNow } from '../spec/version-in-force.js';

export interface ServerOptions {
  db: Db;
  providers: Providers;
  /** What `ai.models` lists (`aiModelsFromEnv`); the test model's names, and no live list, when absent. */
  aiModels?: HandlerSettings['aiModels'];
  /** In process for one server; on Redis when several share the limits. */
  limiter: RateLimiter;
  /** How long a key lookup is trusted; bounds how soon a revocation made by another process is seen. */
  keyCacheTtlMs: number;
  /** How long an idempotency key and its stored reply are kept. */
  idempotencyTtlSeconds?: number;
  /** How long past its call's deadline a running claim holds (default 5 s): the window after a crash. */
  idempotencyLeaseMarginMs?: number;
  /** How long events (and their deliveries) are kept, and so how far back a replay reaches (default 30). */
  eventRetentionDays?: number;
  serverVersion: string;
  logger?: boolean;
  /** How often a stream sends `ping` (default 15 s). */
  streamPingMs?: number;
  /** How long a streaming client may stay behind, and how much may wait for it (defaults: 30 s, 1 MiB). */
  streamStallMs?: number;
  streamMaxBufferedBytes?: number;
  /** Time limits and the connection cap of the HTTP server; `DEFAULT_HTTP_LIMITS` when absent. */
  http?: HttpLimits;
  /** Past this many tools a key may call, `/mcp` lists the three meta tools instead (`MCP_TOOL_LIMIT`, default 40). */
  mcpToolLimit?: number;
  /** When set, `GET /metrics` asks for `Authorization: Bearer <metricsToken>`. */
  metricsToken?: string;
  /** Where clients reach this server (`PUBLIC_URL`), against which error `docUrl`s are made absolute. */
  publicUrl?: string;
  /** The origins browser pages may call the API from (`CORS_ORIGINS`; see cors.ts); none when unset. */
  corsOrigins?: '*' | string[];
  /** Each face module's settings, by face (`readModuleSettings`, or some of them), laid over the module's defaults. */
  settings?: Readonly<Record<string, unknown>>;
  /** The clock by which API versions take effect (calls' default version, the workers' events); `Date.now` unless a test sets it. */
  now?: () => number;
}

/** Tools a key sees by name over MCP before it sees the meta tools: clients warn or cap from 40 on. */
export const DEFAULT_MCP_TOOL_LIMIT = 40;

/** `/docs/errors` under a public URL, its path kept (`https://example.com/api` + `/docs/…`); a full URL as it is. */
function absolute(url: string, publicUrl: string): string {
  return url.startsWith('/') ? `${publicUrl.replace(/\/+$/, '')}${url}` : url;
}

/** Serves `catalogue`: the dispatch table, platform tables and handlers of one set of face files. */
export async function buildServer(served: Catalogue, options: ServerOptions): Promise<FastifyInstance> {
  // Error docUrls are absolute where the server knows its address, so a link in a log or a ticket still works.
  const catalogue = options.publicUrl ? { ...served, platform: { ...served.platform, errorDocsUrl: absolute(served.platform.errorDocsUrl, options.publicUrl) } } : served;
  // Not the newest version declared: one dated later is only announced until its date.
  const defaultVersion = versionInForceNow(catalogue.platform, options.now);
  const metrics = createMetrics({ rateLimitUnavailable: () => options.limiter.unavailableCount ?? 0 });
  const modules = await startModules(catalogue.modules, {
    db: options.db,
    providers: options.providers,
    platform: catalogue.platform,
    faces: catalogue.faces,
    apiVersion: defaultVersion,
    process: 'server',
    ...(options.settings ? { settings: options.settings } : {}),
  });
  // Labels come from the dispatch table, never from the request, so unknown names cannot grow the series.
  const observe: AfterAnswer = (call, reply) => {
    const seconds = (performance.now() - call.startedAt) / 1000;
    metrics.observeCall(call.action?.face ?? 'unknown', call.action?.name ?? 'unknown', reply.status, seconds);
    if (options.logger) log.info({ requestId: call.requestId, action: call.action?.id, entity: call.entityId, status: reply.status, ms: Math.round(seconds * 1000) }, 'call');
  };
  const runtime: Runtime = {
    catalogue,
    handlers: handlerTable(catalogue.modules),
    service: modules.service,
    db: options.db,
    providers: options.providers,
    keys: new KeyCache(options.db, options.keyCacheTtlMs),
    limiter: options.limiter,
    defaultVersion,
    serverVersion: options.serverVersion,
    idempotencyTtlSeconds: options.idempotencyTtlSeconds ?? 86_400,
    idempotencyLeaseMarginMs: options.idempotencyLeaseMarginMs ?? 5_000,
    settings: { aiModels: options.aiModels ?? { test: TEST_MODELS } },
    commits: commitGroupOf(options.db),
    afterAnswer: [observe, ...modules.afterAnswer],
  };
  const streamLimits: StreamLimits = {
    pingMs: options.streamPingMs ?? DEFAULT_STREAM_LIMITS.pingMs,
    stallMs: options.streamStallMs ?? DEFAULT_STREAM_LIMITS.stallMs,
    maxBufferedBytes: options.streamMaxBufferedBytes ?? DEFAULT_STREAM_LIMITS.maxBufferedBytes,
  };
  const http = createHttpApp(runtime, { ...(options.logger ? { logger: true } : {}), http: options.http ?? DEFAULT_HTTP_LIMITS });
  const { app } = http;
  app.addHook('preClose', async () => modules.stopping());
  const corsOrigins = options.corsOrigins ?? [];
  registerCallRoutes(http, runtime, { streamLimits, varyOrigin: corsOrigins !== '*' });
  registerMcpRoutes(http, runtime, { toolLimit: options.mcpToolLimit ?? DEFAULT_MCP_TOOL_LIMIT });
  registerOpsRoutes(http, options.db, metrics, options.metricsToken);
  registerDocumentRoutes(http, catalogue.documents, options.publicUrl);
  registerCors(app, corsOrigins, modules.crossOrigin);
  if (catalogue.documents) registerReferenceRoutes(app, catalogue.documents.docs);
  modules.routes(app);

  const purge = retentionPurge(options.db, options.eventRetentionDays ?? 30);
  const logFiller = eventLogFiller(options.db);
  purge.start();
  logFiller.start();
  modules.startBackground();
  app.addHook('onClose', async () => {
    await Promise.all([purge.stop(), logFiller.stop()]);
    runtime.keys.close();
    // Calls in flight have been answered by now: what the modules still hold is written before the store closes.
    await modules.stop();
  });
  return app;
}
