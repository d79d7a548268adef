/**
 * The HTTP layer of a server: Fastify with the server's log and limits, JSON bodies only, and every refusal
 * of its own (bad JSON, wrong content type, body too large, a path it cannot route, an unknown endpoint)
 * answered in the contract's error envelope (docs/contract.md § Errors). Routes are added by the callers.
 */
import { createServer } from 'node:http';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyReply } from 'fastify';
import { ApiError, toApiError, type ErrorCode } from '../core/errors.js';
import { log } from '../core/log.js';
import { newId } from '../store/secrets.js';
import type { CallState } from './call.js';
import type { Lane } from './call-lane.js';
import { clientErrorHandler } from './client-error.js';
import { errorReply } from './envelope.js';
import { MAX_PATH_PART, type HttpLimits } from './http-limits.js';
import { parseJsonBody } from './json-body.js';
import type { Runtime } from './runtime.js';

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

export interface HttpApp {
  readonly app: FastifyInstance;
  /** Answers with `error` in the envelope, for a request no call began for. */
  sendError(reply: FastifyReply, error: ApiError, requestId?: string): FastifyReply;
  /** True once the server has begun to stop. */
  closing(): boolean;
  /** The refusal of a request that arrives while the server stops: 503 shutting_down, and the connection closed. */
  refuseWhileClosing(reply: FastifyReply): FastifyReply;
  /** The error of that refusal. */
  readonly shuttingDown: () => ApiError;
  /** Puts `lane` in front of Fastify: it sees every request first, and Fastify those it leaves. */
  setLane(lane: Lane): void;
}

/** How long a client refused while the server stops should wait before trying again (s). */
const SHUTDOWN_RETRY_AFTER = '1';

export function createHttpApp(runtime: Runtime, options: { logger?: boolean; http: HttpLimits }): HttpApp {
  const { http } = options;
  const { limits } = runtime.catalogue.platform;
  /** A refusal of the HTTP layer (by its own code) in the contract's terms; undefined for any other error. */
  const httpLayerError = (error: FastifyError): ApiError | undefined => {
    const known = FASTIFY_ERRORS[error.code];
    return known && new ApiError(known[0], known[1](limits));
  };
  const sendError = (reply: FastifyReply, error: ApiError, requestId = reply.request.id) => {
    const call: CallState = { requestId, startedAt: startOf(reply), headers: {}, responseHeaders: { 'Request-Id': requestId } };
    const answer = errorReply(call, runtime, error);
    return reply.code(answer.status).headers(answer.headers).send(answer.body);
  };
  let lane: Lane | undefined;
  const app = Fastify({
    // Node's server as Fastify would make it, with the call lane (call-lane.ts) in front of Fastify's handler.
    serverFactory: (handler) => {
      // Node checks the request and header deadlines on this interval; the default (30 s) would let a slow
      // client linger well past them.
      const server = createServer({ headersTimeout: http.headersTimeoutMs, connectionsCheckingInterval: Math.min(1000, http.headersTimeoutMs) }, (request, response) => {
        if (lane === undefined || !lane(request, response)) handler(request, response);
      });
      server.keepAliveTimeout = http.keepAliveTimeoutMs;
      server.requestTimeout = http.requestTimeoutMs;
      return server;
    },
    // The server's own log (log.ts), with each request known by the id the client sees as Request-Id. Its
    // per-call line is the server's own, so Fastify's own pair of request lines is left out.
    // Fastify's own lines (its start, its errors) at the log's level, and no chatter below warn unless calls are logged.
    loggerInstance: log.child({}, { level: options.logger || log.levelVal >= 40 ? log.level : 'warn' }) as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'requestId' }),
    genReqId: () => newId('req'),
    bodyLimit: limits.bodyBytes,
    routerOptions: { maxParamLength: MAX_PATH_PART },
    // Refused by the call routes with the contract's envelope (503 shutting_down) rather than Fastify's own body.
    return503OnClosing: false,
    schemaController: { compilersFactory: { buildValidator: NO_ROUTE_SCHEMAS, buildSerializer: NO_ROUTE_SCHEMAS } },
    clientErrorHandler: clientErrorHandler(runtime.serverVersion, runtime.catalogue.platform.errorDocsUrl, runtime.catalogue.errors),
    // A path Fastify cannot route (bad percent-encoding, a part longer than it routes) leaves in the envelope.
    frameworkErrors: (error, _request, reply) => sendError(reply, httpLayerError(error) ?? new ApiError('request_malformed', 'The request cannot be routed.')),
  });
  app.server.maxConnections = http.maxConnections;
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => parseJsonBody(request, body as string, done));
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
  const shuttingDown = () => new ApiError('shutting_down', 'The server is stopping; retry shortly.', { headers: { 'Retry-After': SHUTDOWN_RETRY_AFTER } });
  const refuseWhileClosing = (reply: FastifyReply) => {
    reply.header('Connection', 'close');
    return sendError(reply, shuttingDown());
  };
  return { app, sendError, closing: () => closing, refuseWhileClosing, shuttingDown, setLane: (next) => void (lane = next) };
}

/** When fastify started on this request, on the `performance.now()` clock. */
export function startOf(reply: FastifyReply): number {
  return performance.now() - reply.elapsedTime;
}
