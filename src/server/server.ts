/**
 * The HTTP server: `POST /do`, `POST /{version}/do` and `POST /do/{face}.{action}` run the call pipeline, answering JSON or, for a
 * streaming call, server-sent events; `/healthz`, `/readyz`, `/metrics`, `/openapi.json`, `/docs/*` and `/dashboard` serve
 * the rest. Unless told otherwise it also runs the face modules' background work (their settings say which
 * they leave to `dispatch worker`). Every error, the HTTP layer's own included (bad JSON, wrong
 * content type, body too large, unknown path), leaves in the error envelope of docs/contract.md § Errors.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyError, type FastifyReply, type FastifyRequest, type FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Providers } from '../providers/index.js';
import { TEST_MODELS } from '../providers/model-list.js';
import { CommitGroup } from '../store/commit-group.js';
import { purgeEvents } from '../store/events.js';
import { purgeExpiredIdempotency } from '../store/idempotency.js';
import type { Db } from '../store/schema.js';
import { postgresPool } from '../store/open.js';
import { equalSecrets, newId } from '../store/secrets.js';
import type { AfterAnswer, CallState } from './call.js';
import type { HandlerSettings } from '../core/context.js';
import type { Catalogue } from '../core/catalogue.js';
import { errorReply } from './envelope.js';
import { ApiError, registerErrorCodes, toApiError, type ErrorCode } from '../core/errors.js';
import { handlerTable } from './handler-table.js';
import { startModules } from './modules.js';
import { KeyCache } from './key-cache.js';
import { registerCors } from './cors.js';
import { registerReferenceRoutes } from './reference-routes.js';
import { createMetrics } from './metrics.js';
import { runCall } from './pipeline.js';
import type { RateLimiter } from './rate-limit/limiter.js';
import type { Runtime } from './runtime.js';
import { clientErrorHandler } from './client-error.js';
import { DEFAULT_HTTP_LIMITS, type HttpLimits } from './http-limits.js';
import { registerDashboardRoutes } from './dashboard-routes.js';
import { parseJsonBody } from './json-body.js';
import { purgeUsage } from '../usage/purge.js';
import { UsageFeed } from '../store/usage-feed.js';
import { UsageRecorder } from '../usage/recorder.js';
import { UsageRelay } from '../usage/relay.js';
import { usageStage } from '../usage/record-call.js';
import { DEFAULT_STREAM_LIMITS, EventStreamResponse, type StreamLimits } from './sse.js';
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
  /** When set, `GET /metrics` asks for `Authorization: Bearer <metricsToken>`. */
  metricsToken?: string;
  /** Where clients reach this server (`PUBLIC_URL`), against which error `docUrl`s are made absolute. */
  publicUrl?: string;
  /** The origins browser pages may call the API from (`CORS_ORIGINS`; see cors.ts); none when unset. */
  corsOrigins?: '*' | string[];
  /** Usage records: how long one may wait to be written (the most a crash loses; default 1 s), and how long raw records (30 days) and minute rollups (400 days) are kept. */
  usage?: { flushMs?: number; retentionDays?: number; rollupRetentionDays?: number; /** false records nothing (for measuring the stage's cost). */ enabled?: boolean };
  /** Each face module's settings, by face (`readModuleSettings`); a module given none runs with its defaults. */
  settings?: Readonly<Record<string, unknown>>;
  /** The clock by which API versions take effect (calls' default version, the workers' events); `Date.now` unless a test sets it. */
  now?: () => number;
}

/** How long a client refused while the server stops should wait before trying again (s). */
const SHUTDOWN_RETRY_AFTER = '1';

/** How often expired idempotency records and events past their retention are deleted. */
const PURGE_INTERVAL_MS = 10 * 60_000;

/** What the HTTP layer reports by its own codes, in the contract's terms. */
const FASTIFY_ERRORS: Record<string, [code: ErrorCode, message: (limits: { bodyBytes: number }) => string]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: ['payload_too_large', (limits) => `The body is larger than ${limits.bodyBytes} bytes.`],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ['unsupported_media_type', () => 'Send the body as Content-Type: application/json.'],
  FST_ERR_CTP_EMPTY_JSON_BODY: ['invalid_json', () => 'The body is empty; send {face, action, payload} (or {payload} to POST /do/{face}.{action}).'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: ['invalid_json', () => 'Content-Length does not match the body.'],
  FST_ERR_BAD_URL: ['request_malformed', () => 'The path is not a valid URL (check its percent-encoding).'],
  FST_ERR_MAX_PARAM_LENGTH: ['uri_too_long', () => 'A part of the path is longer than the server accepts.'],
};

/**
 * Fastify's schema compilers, never loaded: no route carries a Fastify schema (calls are checked by the
 * generated validators), and Fastify would otherwise load its ajv and fast-json-stringify compilers as it
 * starts, ~20 ms of every start.
 */
const NO_ROUTE_SCHEMAS = () => () => {
  throw new Error('Routes of this server carry no Fastify schema: a call is checked by its generated validator.');
};

/** `/docs/errors.md` under a public URL, its path kept (`https://example.com/api` + `/docs/…`); a full URL as it is. */
function absolute(url: string, publicUrl: string): string {
  return url.startsWith('/') ? `${publicUrl.replace(/\/+$/, '')}${url}` : url;
}

/** Serves `catalogue`: the dispatch table, platform tables and handlers of one set of face files. */
export async function buildServer(served: Catalogue, options: ServerOptions): Promise<FastifyInstance> {
  // Error docUrls are absolute where the server knows its address, so a link in a log or a ticket still works.
  const catalogue = options.publicUrl ? { ...served, platform: { ...served.platform, errorDocsUrl: absolute(served.platform.errorDocsUrl, options.publicUrl) } } : served;
  registerErrorCodes(catalogue.errors.values());
  const { limits } = catalogue.platform;
  // Not the newest version declared: one dated later is only announced until its date.
  const defaultVersion = versionInForceNow(catalogue.platform, options.now);
  const metrics = createMetrics({ rateLimitUnavailable: () => options.limiter.unavailableCount ?? 0 });
  const usageFeed = new UsageFeed();
  const pool = postgresPool(options.db);
  // Several processes share a PostgreSQL store: each one's live followers also see the others' records.
  const relay = pool && new UsageRelay(options.db, pool, usageFeed);
  const providers = options.providers;
  const modules = await startModules(catalogue.modules, {
    db: options.db,
    providers,
    platform: catalogue.platform,
    apiVersion: defaultVersion,
    process: 'server',
    ...(options.settings ? { settings: options.settings } : {}),
  });
  const usage = new UsageRecorder(options.db, { flushMs: options.usage?.flushMs ?? 1000, feed: usageFeed, ...(relay ? { relay } : {}) });
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
    providers,
    keys: new KeyCache(options.db, options.keyCacheTtlMs),
    limiter: options.limiter,
    defaultVersion,
    serverVersion: options.serverVersion,
    idempotencyTtlSeconds: options.idempotencyTtlSeconds ?? 86_400,
    idempotencyLeaseMarginMs: options.idempotencyLeaseMarginMs ?? 5_000,
    settings: { aiModels: options.aiModels ?? { test: TEST_MODELS } },
    commits: new CommitGroup(options.db),
    usageFeed,
    afterAnswer: [observe, ...(options.usage?.enabled === false ? [] : [usageStage(usage, catalogue)]), ...modules.afterAnswer],
  };
  const streamLimits: StreamLimits = {
    pingMs: options.streamPingMs ?? DEFAULT_STREAM_LIMITS.pingMs,
    stallMs: options.streamStallMs ?? DEFAULT_STREAM_LIMITS.stallMs,
    maxBufferedBytes: options.streamMaxBufferedBytes ?? DEFAULT_STREAM_LIMITS.maxBufferedBytes,
  };
  const http = options.http ?? DEFAULT_HTTP_LIMITS;
  const app = Fastify({
    // The server's own log (log.ts), with each request known by the id the client sees as Request-Id. Its
    // per-call line is ours (below), so Fastify's own pair of request lines is left out.
    // Fastify's own lines (its start, its errors) at the log's level, and no chatter below warn unless calls are logged.
    loggerInstance: log.child({}, { level: options.logger || log.levelVal >= 40 ? log.level : 'warn' }) as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'requestId' }),
    genReqId: () => newId('req'),
    bodyLimit: limits.bodyBytes,
    // Refused below with the contract's envelope (503 shutting_down) rather than Fastify's own body.
    return503OnClosing: false,
    schemaController: { compilersFactory: { buildValidator: NO_ROUTE_SCHEMAS, buildSerializer: NO_ROUTE_SCHEMAS } },
    requestTimeout: http.requestTimeoutMs,
    keepAliveTimeout: http.keepAliveTimeoutMs,
    // Node checks the request and header deadlines on this interval; the default (30 s) would let a slow
    // client linger well past them.
    http: { headersTimeout: http.headersTimeoutMs, connectionsCheckingInterval: Math.min(1000, http.headersTimeoutMs) },
    clientErrorHandler: clientErrorHandler(options.serverVersion, catalogue.platform.errorDocsUrl),
    // A path Fastify cannot route (bad percent-encoding, a part longer than it routes) leaves in the envelope.
    frameworkErrors: (error, _request, reply) => sendError(reply, httpLayerError(error) ?? new ApiError('request_malformed', 'The request cannot be routed.')),
  });
  app.server.maxConnections = http.maxConnections;
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
    // Live usage streams would otherwise hold the stop for up to their time-out.
    usageFeed.endAll();
  });
  /** The refusal of a call that arrives while the server stops (checked in the handler: a hook would cost every request). */
  const refuseWhileClosing = (reply: FastifyReply) => {
    reply.header('Connection', 'close');
    return sendError(reply, new ApiError('shutting_down', 'The server is stopping; retry shortly.', { headers: { 'Retry-After': SHUTDOWN_RETRY_AFTER } }));
  };

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => parseJsonBody(request, body as string, done));

  /** A refusal of the HTTP layer (by its own code) in the contract's terms; undefined for any other error. */
  const httpLayerError = (error: FastifyError): ApiError | undefined => {
    const known = FASTIFY_ERRORS[error.code];
    return known && new ApiError(known[0], known[1](limits));
  };

  /** Answers what the HTTP layer refused before any call began (bad JSON, wrong type, unknown path). */
  const sendError = (reply: FastifyReply, error: ApiError, requestId = reply.request.id) => {
    const call: CallState = { requestId, startedAt: startOf(reply), headers: {}, responseHeaders: { 'Request-Id': requestId } };
    const answer = errorReply(call, runtime, error);
    return reply.code(answer.status).headers(answer.headers).send(answer.body);
  };

  const handleDo = async (request: FastifyRequest, reply: FastifyReply, path: { version?: string; action?: { face: string; action: string } } = {}) => {
    if (closing) return refuseWhileClosing(reply);
    const requestId = request.id;
    let events: EventStreamResponse | undefined;
    const openStream = (headers: Record<string, string>): EventStreamResponse => {
      reply.hijack();
      // A replay names the request that was answered, as its stored Request-Id header does.
      events = new EventStreamResponse(reply.raw, streamLimits, headers, { requestId: headers['Request-Id'] ?? requestId, apiVersion: call.apiVersion! });
      return events;
    };
    const call: CallState = {
      requestId,
      startedAt: startOf(reply),
      headers: request.headers,
      rawHeaders: request.raw.rawHeaders,
      pathVersion: path.version,
      pathAction: path.action,
      body: request.body,
      responseHeaders: { 'Request-Id': requestId },
      openStream: () => openStream(call.responseHeaders).channel,
    };
    const answer = await runCall(call, runtime);
    if (events) events.finish(answer);
    // A replayed stream was answered before: it gets its start and its stored terminal event.
    else if (call.stream && call.replayed) openStream(answer.headers).finish(answer);
    else return reply.code(answer.status).headers(answer.headers).send(answer.body);
    return reply;
  };

  app.post('/do', (request, reply) => handleDo(request, reply));
  app.post<{ Params: { version: string } }>('/:version/do', (request, reply) => handleDo(request, reply, { version: request.params.version }));
  // The alias that gives each action a path of its own (docs/contract.md § Endpoints): `face.action`, split at the first dot.
  app.post<{ Params: { call: string } }>('/do/:call', (request, reply) => {
    const { call } = request.params;
    const dot = call.indexOf('.');
    if (dot <= 0 || dot === call.length - 1) {
      return sendError(reply, new ApiError('route_not_found', `No endpoint POST /do/${call}; name an action as POST /do/{face}.{action}, e.g. /do/ai.generate.`));
    }
    return handleDo(request, reply, { action: { face: call.slice(0, dot), action: call.slice(dot + 1) } });
  });

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/metrics', async (request, reply) => {
    if (options.metricsToken !== undefined && !equalSecrets(request.headers.authorization ?? '', `Bearer ${options.metricsToken}`)) {
      return sendError(reply, new ApiError('api_key_invalid', 'GET /metrics needs "Authorization: Bearer <METRICS_TOKEN>".'));
    }
    const { contentType, text } = await metrics.scrape();
    return reply.type(contentType).send(text);
  });
  app.get('/readyz', async (_request, reply) => {
    // A stopping server is not ready: load balancers take it out of rotation before it goes.
    if (closing) return reply.code(503).send({ status: 'stopping' });
    try {
      await sql`select 1`.execute(options.db);
      return { status: 'ready' };
    } catch {
      return reply.code(503).send({ status: 'unavailable', store: 'unreachable' });
    }
  });
  const documents = catalogue.documents;
  if (documents) app.get('/openapi.json', (_request, reply) => reply.type('application/json').send(documents.openapi));
  app.get<{ Params: { '*': string } }>('/docs/*', (request, reply) => {
    const page = documents?.docs.get(request.params['*'] || 'index.md');
    if (page === undefined) throw new ApiError('route_not_found', `No document ${request.url}.`);
    return reply.type('text/markdown; charset=utf-8').send(page);
  });

  registerCors(app, options.corsOrigins ?? [], modules.crossOrigin);
  registerDashboardRoutes(app);
  if (documents) registerReferenceRoutes(app);
  modules.routes(app);

  app.setNotFoundHandler((request, reply) =>
    sendError(reply, new ApiError('route_not_found', `No endpoint ${request.method} ${request.url.split('?')[0]}; the API is POST /do.`)),
  );
  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    if (error instanceof ApiError) return sendError(reply, error);
    // A client that goes away in the middle of its body is not a fault of the server: one line, no stack.
    if (request.raw.aborted || (error as NodeJS.ErrnoException).code === 'ECONNRESET') {
      log.warn({ requestId: request.id, method: request.method, path: request.url.split('?')[0] }, 'the client closed the connection while sending its body');
      return reply.code(400).send();
    }
    const known = httpLayerError(error as FastifyError);
    if (known) return sendError(reply, known);
    return sendError(reply, toApiError(error, request.id), request.id);
  });

  const retentionMs = (options.eventRetentionDays ?? 30) * 86_400_000;
  const usageRetentionMs = (options.usage?.retentionDays ?? 30) * 86_400_000;
  const rollupRetentionMs = (options.usage?.rollupRetentionDays ?? 400) * 86_400_000;
  const purge = setInterval(() => {
    purgeUsage(options.db, new Date(Date.now() - usageRetentionMs).toISOString(), new Date(Date.now() - rollupRetentionMs).toISOString()).catch((error: unknown) =>
      log.error({ err: error }, 'usage purge failed'),
    );
    purgeExpiredIdempotency(options.db, new Date().toISOString()).catch((error: unknown) => log.error({ err: error }, 'idempotency purge failed'));
    purgeEvents(options.db, new Date(Date.now() - retentionMs).toISOString()).catch((error: unknown) => log.error({ err: error }, 'event purge failed'));
  }, PURGE_INTERVAL_MS).unref();
  modules.startBackground();
  app.addHook('onClose', async () => {
    clearInterval(purge);
    runtime.keys.close();
    await modules.stop();
    // Calls in flight have been answered by now: what they recorded is written before the store closes.
    await usage.close();
    relay?.close();
  });
  return app;
}

/** When fastify started on this request, on the `performance.now()` clock. */
function startOf(reply: FastifyReply): number {
  return performance.now() - reply.elapsedTime;
}
