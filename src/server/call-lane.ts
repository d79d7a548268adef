/**
 * The call lane: `POST /do`, `POST /{version}/do` and `POST /do/{face}.{action}` answered on node:http itself,
 * in front of Fastify. A call needs nothing of Fastify's routing, hooks and reply objects, which cost a call
 * more than its own checks do (docs/benchmarks.md). The lane takes a request only when it is plain: one of
 * the call paths without percent-encoding or a query, a JSON body of a stated length within the limit, no
 * Origin (cross-origin answers stay with cors.ts), the server not stopping. Every other request goes on to
 * Fastify, which answers it as before; what the lane answers is what Fastify's routes would, byte for byte.
 * Fastify's hooks do not run for the calls the lane takes: the one the server has (cors.ts) adds only
 * `Vary: Origin` to such a call, and the lane adds it itself.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, toApiError } from '../core/errors.js';
import { log } from '../core/log.js';
import { newId } from '../store/secrets.js';
import type { CallState, Reply } from './call.js';
import { answerCall, pathAction, type CallPath, type CallResponse } from './answer-call.js';
import { bodyText, errorReply } from './envelope.js';
import { readJsonBody } from './json-body.js';
import { MAX_PATH_PART } from './http-limits.js';
import type { Runtime } from './runtime.js';
import type { StreamLimits } from './sse.js';

/** Takes a request and answers it (true), or leaves it to the next handler (false). */
export type Lane = (request: IncomingMessage, response: ServerResponse) => boolean;

export interface CallLaneOptions {
  streamLimits: StreamLimits;
  /** True once the server has begun to stop: a request that comes then is Fastify's to refuse. */
  closing(): boolean;
  /** The refusal of a call whose body was read once the server had begun to stop. */
  shuttingDown(): ApiError;
  /** Whether API answers say `Vary: Origin` (a list of origins is configured, even an empty one; cors.ts). */
  varyOrigin: boolean;
}

/**
 * A path part the lane reads as it is: unreserved characters only, so that nothing needs decoding, and no
 * longer than Fastify routes (a longer one is Fastify's 414).
 */
const SEGMENT = new RegExp(`^[A-Za-z0-9._~-]{1,${MAX_PATH_PART}}$`);
/** JSON, in UTF-8 if a charset is named; any other parameter is left to Fastify's parser. */
const JSON_TYPE = /^application\/json(?:\s*;\s*charset\s*=\s*"?utf-?8"?)?\s*$/i;
/** `POST /do`, which names neither a version nor an action in its path. */
const PLAIN_PATH: CallPath = Object.freeze({});

/** The call a lane path names; undefined for any path the lane leaves to Fastify. */
function callPath(url: string): CallPath | undefined {
  if (url === '/do') return PLAIN_PATH;
  if (url.startsWith('/do/')) {
    const call = url.slice(4);
    const action = SEGMENT.test(call) ? pathAction(call) : undefined;
    return action && { action };
  }
  if (url.endsWith('/do')) {
    const version = url.slice(1, -3);
    return SEGMENT.test(version) ? { version } : undefined;
  }
  return undefined;
}

export function callLane(runtime: Runtime, options: CallLaneOptions): Lane {
  const bodyBytes = runtime.catalogue.platform.limits.bodyBytes;
  return (request, response) => {
    if (request.method !== 'POST') return false;
    const path = callPath(request.url!);
    if (!path) return false;
    const { headers } = request;
    const length = headers['content-length'];
    const type = headers['content-type'];
    if (length === undefined || headers['transfer-encoding'] !== undefined || headers.origin !== undefined || type === undefined) return false;
    // Node has checked that Content-Length is a number and reads exactly that many bytes.
    const bytes = Number(length);
    if (!(bytes > 0 && bytes <= bodyBytes) || !JSON_TYPE.test(type) || options.closing()) return false;
    const startedAt = performance.now();
    const requestId = newId('req');
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('error', () => {
      // A client that goes away in the middle of its body is not a fault of the server: one line, no stack.
      log.warn({ requestId, method: 'POST', path: request.url }, 'the client closed the connection while sending its body');
      if (options.varyOrigin) response.setHeader('Vary', 'Origin');
      response.statusCode = 400;
      response.end();
    });
    request.on('end', () => {
      const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
      answer(runtime, options, { requestId, startedAt, headers, rawHeaders: request.rawHeaders, text, type, path }, response);
    });
    return true;
  };
}

interface LaneRequest {
  requestId: string;
  startedAt: number;
  headers: IncomingMessage['headers'];
  rawHeaders: readonly string[];
  text: string;
  type: string;
  path: CallPath;
}

function answer(runtime: Runtime, options: CallLaneOptions, request: LaneRequest, raw: ServerResponse): void {
  const { requestId, startedAt } = request;
  const { varyOrigin } = options;
  /** Refuses the request before it became a call; `close`: and closes the connection, as Fastify does then. */
  const refuse = (error: ApiError, close = false) => {
    const call: CallState = { requestId, startedAt, headers: {}, responseHeaders: { 'Request-Id': requestId } };
    writeReply(raw, errorReply(call, runtime, error), { close, varyOrigin });
  };
  // The pipeline answers its own errors; this is a fault in answering, as Fastify's error handler would see it.
  const fault = (error: unknown) => {
    if (!raw.headersSent) refuse(toApiError(error, requestId));
    else raw.destroy(error as Error);
  };
  // A call whose body came once the server had begun to stop is refused, as Fastify's routes refuse it.
  if (options.closing()) return refuse(options.shuttingDown(), true);
  let body: unknown;
  try {
    body = readJsonBody(request.type, request.text);
  } catch (error) {
    // A body that cannot be read leaves the connection in doubt: Fastify closes it, and so does the lane.
    return refuse(error as ApiError, true);
  }
  const response: CallResponse = {
    raw,
    // A stream writes its own head, on which the header is set first.
    takeOver: () => varyOrigin && raw.setHeader('Vary', 'Origin'),
    send: (reply) => writeReply(raw, reply, { varyOrigin }),
  };
  const call = { requestId, startedAt, headers: request.headers, rawHeaders: request.rawHeaders, body, path: request.path };
  try {
    const answering = answerCall(runtime, options.streamLimits, call, response);
    if (answering instanceof Promise) answering.catch(fault);
  } catch (error) {
    fault(error);
  }
}

/**
 * Sends a reply as Fastify's `reply.code().headers().send()` does: header names in lower case, an object body
 * as JSON in UTF-8, a text as plain text unless the reply names its type, and its length. `varyOrigin` puts
 * `Vary: Origin` first, where Fastify's hook sets it; `close` asks for `Connection: close` next, as Fastify's
 * refusals that close the connection do. The head goes to node:http as one flat list of names and values:
 * with no header set before, node:http writes it as it is, without a header object of its own.
 */
function writeReply(raw: ServerResponse, reply: Reply, { close = false, varyOrigin }: { close?: boolean; varyOrigin: boolean }): void {
  const head: string[] = varyOrigin ? ['Vary', 'Origin'] : [];
  if (close) head.push('connection', 'close');
  let typed = false;
  for (const name in reply.headers) {
    const lower = lowerCase(name);
    if (lower === 'content-length') continue;
    typed ||= lower === 'content-type';
    head.push(lower, reply.headers[name]!);
  }
  const { body } = reply;
  let text: string;
  if (body === undefined) text = '';
  else if (typeof body === 'string') {
    text = body;
    if (!typed) head.push('content-type', 'text/plain; charset=utf-8');
  } else {
    text = bodyText(body);
    if (!typed) head.push('content-type', 'application/json; charset=utf-8');
  }
  head.push('content-length', String(Buffer.byteLength(text)));
  raw.writeHead(reply.status, head);
  raw.end(text);
}

/** Header names in lower case, each made once: the names come from the code, a few dozen in all. */
const lowered = new Map<string, string>();

function lowerCase(name: string): string {
  let lower = lowered.get(name);
  if (lower === undefined) {
    lower = name.toLowerCase();
    // A bound all the same, should a face name its headers from what it is sent.
    if (lowered.size < 1_000) lowered.set(name, lower);
  }
  return lower;
}
