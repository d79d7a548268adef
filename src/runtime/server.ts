/**
 * The HTTP server: `POST /do` and `POST /{version}/do` run the call pipeline, answering JSON or, for a
 * streaming call, server-sent events; `/healthz`, `/readyz`, `/metrics`, `/openapi.json` and `/docs/*` serve
 * the rest. Unless told otherwise it also runs the webhook delivery worker. Every error, the HTTP layer's
 * own included (bad JSON, wrong content type, body too large, unknown path), leaves in the error envelope
 * of API.md §4.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import secureJson from 'secure-json-parse';
import { sql } from 'kysely';
import { platform } from '../../generated/server/platform.js';
import type { Providers } from '../providers/index.js';
import { CommitGroup } from '../store/commit-group.js';
import { purgeEvents } from '../store/events.js';
import { purgeExpiredIdempotency } from '../store/idempotency.js';
import type { Db } from '../store/schema.js';
import { DEFAULT_WEBHOOK_CONFIG, type WebhookConfig } from '../webhooks/config.js';
import { WebhookWorker } from '../webhooks/worker.js';
import type { CallState, Reply, RuntimeDeps } from './call.js';
import { errorBody, errorReply, responseMeta } from './envelope.js';
import { ApiError, toApiError } from './errors.js';
import { KeyCache } from './key-cache.js';
import { createMetrics } from './metrics.js';
import type { RateLimiter } from './rate-limit/limiter.js';
import { runCall } from './pipeline.js';
import { newId } from './secrets.js';
import { parseEnvelope } from './stages/parse.js';
import { EventStreamResponse } from './sse.js';

export interface ServerOptions {
  db: Db;
  providers: Providers;
  /** In process for one server; on Redis when several share the limits. */
  limiter: RateLimiter;
  /** How long a key lookup is trusted; bounds how soon a revocation made by another process is seen. */
  keyCacheTtlMs: number;
  /** How long an idempotency key and its stored reply are kept. */
  idempotencyTtlSeconds?: number;
  /** How long events (and their deliveries) are kept, and so how far back a replay reaches (default 30). */
  eventRetentionDays?: number;
  serverVersion: string;
  logger?: boolean;
  /** Webhook delivery settings; the defaults of API.md §12 when absent. */
  webhooks?: WebhookConfig;
  /** Runs the webhook delivery worker inside the server (default true); false when workers run apart. */
  webhookWorker?: boolean;
  /** How often a stream sends `ping` (default 15 s). */
  streamPingMs?: number;
}

/** How often expired idempotency records and events past their retention are deleted. */
const PURGE_INTERVAL_MS = 10 * 60_000;

const GENERATED = fileURLToPath(new URL('../../generated/', import.meta.url));

/** What the HTTP layer reports by its own codes, in the contract's terms. */
const FASTIFY_ERRORS: Record<string, [code: string, message: string]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: ['payload_too_large', `The body is larger than ${platform.limits.bodyBytes} bytes.`],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ['unsupported_media_type', 'Send the body as Content-Type: application/json.'],
  FST_ERR_CTP_EMPTY_JSON_BODY: ['invalid_json', 'The body is empty; send {face, action, payload}.'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: ['invalid_json', 'Content-Length does not match the body.'],
};

export async function buildServer(options: ServerOptions): Promise<FastifyInstance> {
  const webhooks = options.webhooks ?? DEFAULT_WEBHOOK_CONFIG;
  const worker = options.webhookWorker === false ? undefined : new WebhookWorker(options.db, webhooks);
  const metrics = createMetrics({ rateLimitUnavailable: () => options.limiter.unavailableCount ?? 0 });
  const deps: RuntimeDeps = {
    db: options.db,
    providers: options.providers,
    keys: new KeyCache(options.db, options.keyCacheTtlMs),
    limiter: options.limiter,
    serverVersion: options.serverVersion,
    idempotencyTtlSeconds: options.idempotencyTtlSeconds ?? 86_400,
    settings: { allowPrivateWebhookUrls: webhooks.allowPrivateUrls },
    commits: new CommitGroup(options.db),
    // Labels come from the dispatch table, never from the request, so unknown names cannot grow the series.
    observe: (call, status, startedAt) =>
      metrics.observeCall(call.action?.face ?? 'unknown', call.action?.name ?? 'unknown', status, (performance.now() - startedAt) / 1000),
  };
  const pingMs = options.streamPingMs ?? 15_000;
  const app = Fastify({ logger: options.logger ?? false, bodyLimit: platform.limits.bodyBytes, return503OnClosing: true });
  const calls = new WeakMap<FastifyRequest, CallState>();
  const observe = (call: CallState, status: number) => deps.observe(call, status, call.startedAt);

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      // Refuses `__proto__` and `constructor.prototype` keys rather than silently dropping them.
      done(null, secureJson.parse(body as string, undefined, { protoAction: 'error', constructorAction: 'error' }));
    } catch (error) {
      const reason = (error as Error).message.includes('prototype') ? 'it holds a forbidden __proto__ or constructor.prototype key' : 'it is not valid JSON';
      done(new ApiError('invalid_json', `The body cannot be read: ${reason}.`), undefined);
    }
  });

  const sendError = (request: FastifyRequest, reply: FastifyReply, error: ApiError) => {
    const call = calls.get(request);
    if (call) observe(call, error.status);
    const requestId = call?.requestId ?? newId('req');
    const headers = { ...(call?.responseHeaders ?? { 'Request-Id': requestId }), ...error.headers };
    return reply.code(error.status).headers(headers).send(errorBody(error, responseMeta(requestId, startOf(reply), options.serverVersion)));
  };

  const handleDo = async (request: FastifyRequest, reply: FastifyReply, pathVersion?: string) => {
    const requestId = newId('req');
    const call: CallState = {
      requestId,
      startedAt: startOf(reply),
      headers: request.headers,
      pathVersion,
      envelope: undefined as never,
      responseHeaders: { 'Request-Id': requestId },
    };
    calls.set(request, call);
    call.envelope = parseEnvelope(call, request.body);
    let events: EventStreamResponse | undefined;
    const openStream = (headers: Record<string, string>): EventStreamResponse => {
      reply.hijack();
      // A replay names the request that was answered, as its stored Request-Id header does.
      events = new EventStreamResponse(reply.raw, pingMs, headers, { requestId: headers['Request-Id'] ?? requestId, apiVersion: call.apiVersion! });
      return events;
    };
    let answer: Reply;
    try {
      answer = await runCall(call, deps, () => openStream(call.responseHeaders).channel);
    } catch (error) {
      // Before the stream opens an error is an ordinary JSON answer; after, it is the stream's error event.
      if (!events) throw error;
      answer = errorReply(call, options.serverVersion, toApiError(error, requestId));
    }
    observe(call, answer.status);
    if (!call.stream) return reply.code(answer.status).headers(answer.headers).send(answer.body);
    // A replayed stream was answered before: it gets its start and its stored terminal event.
    (events ?? openStream(answer.headers)).finish(answer);
    return reply;
  };

  app.post('/do', (request, reply) => handleDo(request, reply));
  app.post<{ Params: { version: string } }>('/:version/do', (request, reply) => handleDo(request, reply, request.params.version));

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/metrics', async (_request, reply) => reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()));
  app.get('/readyz', async (_request, reply) => {
    try {
      await sql`select 1`.execute(options.db);
      return { status: 'ready' };
    } catch {
      return reply.code(503).send({ status: 'unavailable', store: 'unreachable' });
    }
  });
  const openapi = readFileSync(join(GENERATED, 'openapi.json'), 'utf8');
  app.get('/openapi.json', (_request, reply) => reply.type('application/json').send(openapi));
  const docs = generatedDocs();
  app.get<{ Params: { '*': string } }>('/docs/*', (request, reply) => {
    const page = docs.get(request.params['*'] || 'index.md');
    if (page === undefined) throw new ApiError('route_not_found', `No document ${request.url}.`);
    return reply.type('text/markdown; charset=utf-8').send(page);
  });

  app.setNotFoundHandler((request, reply) =>
    sendError(request, reply, new ApiError('route_not_found', `No endpoint ${request.method} ${request.url.split('?')[0]}; the API is POST /do.`)),
  );
  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    if (error instanceof ApiError) return sendError(request, reply, error);
    const known = FASTIFY_ERRORS[(error as FastifyError).code ?? ''];
    if (known) return sendError(request, reply, new ApiError(known[0], known[1]));
    return sendError(request, reply, toApiError(error, calls.get(request)?.requestId ?? 'no request id'));
  });

  const retentionMs = (options.eventRetentionDays ?? 30) * 86_400_000;
  const purge = setInterval(() => {
    purgeExpiredIdempotency(options.db, new Date().toISOString()).catch((error: unknown) => console.error('idempotency purge failed:', error));
    purgeEvents(options.db, new Date(Date.now() - retentionMs).toISOString()).catch((error: unknown) => console.error('event purge failed:', error));
  }, PURGE_INTERVAL_MS).unref();
  worker?.start();
  app.addHook('onClose', async () => {
    clearInterval(purge);
    deps.keys.close();
    await worker?.stop();
  });
  return app;
}

/** When fastify started on this request, on the `performance.now()` clock. */
function startOf(reply: FastifyReply): number {
  return performance.now() - reply.elapsedTime;
}

/** The generated markdown documents, by path under docs/ (only files the generator listed). */
function generatedDocs(): Map<string, string> {
  const manifest = JSON.parse(readFileSync(join(GENERATED, 'manifest.json'), 'utf8')) as { files: string[] };
  return new Map(
    manifest.files.filter((f) => f.startsWith('docs/')).map((f) => [f.slice('docs/'.length), readFileSync(join(GENERATED, f), 'utf8')]),
  );
}
