/**
 * The transport of the client: posts `{face, action, payload, options}` to `POST /do` and turns the answer
 * into its `data` or a `DispatchError`, or, for a streaming call, reads its server-sent events into a
 * `DispatchStream`. Calls that failed for a passing reason (429, 503, 409 `idempotency_key_in_use`, a lost
 * connection) before any answer or stream arrived are retried with backoff under one idempotency key, so a
 * retry never runs twice on the server. It relies on `fetch`, `ReadableStream` and `TextDecoder`, and on
 * the `eventsource-parser` package (plain ES2020, no Node built-ins) to read event streams, so it runs in
 * Node 18+ and in browsers; install that package next to the generated client.
 */
import { createParser } from 'eventsource-parser';
import { DispatchStream, type StreamEvent } from './stream.js';

export { DispatchStream, type StreamEvent } from './stream.js';

/** The first backoff step; each retry doubles it, up to `MAX_BACKOFF_MS`. */
const BASE_DELAY_MS = 250;
const MAX_BACKOFF_MS = 8_000;
/** A `Retry-After` longer than this is not waited for: the call fails at once with that answer. */
const MAX_RETRY_DELAY_MS = 60_000;

/** How a client reaches the API and who it acts as. */
export interface ClientOptions {
  /** Where the API is served. @default 'http://localhost:8787' */
  baseUrl?: string;
  /** A secret key, `sk_live_…` or `sk_test_…`. */
  apiKey: string;
  /** The entity every call acts for (`X-Entity-ID`), unless a call names another. */
  entityId: string;
  /** The API version (`YYYY-MM-DD`) sent as `X-API-Version`; the generated client defaults it to its own. */
  apiVersion?: string;
  /** A `fetch` to use instead of the global one (for tests, proxies or instrumentation). */
  fetch?: typeof fetch;
  /**
   * Gives up on an attempt with no complete answer after this many milliseconds. A time-out is not
   * retried: it is the caller's limit on waiting, and the first attempt may still be running on the server.
   */
  timeoutMs?: number;
  /** Extra headers sent with every call; the protocol headers above take precedence. */
  headers?: Record<string, string>;
  /**
   * How often a call is retried after a 429, a 503, a 409 `idempotency_key_in_use` or a lost connection,
   * waiting out any `Retry-After` up to 60 s; 0 disables. @default 2
   */
  maxRetries?: number;
  /** For tests: the random source of the backoff jitter, returning a number in [0, 1). @default Math.random */
  random?: () => number;
  /** For tests: waits `ms` between attempts; must reject with `signal.reason` as soon as `signal` aborts. */
  sleep?: (ms: number, signal: AbortSignal | undefined) => Promise<void>;
}

/** Settings of one call. */
export interface CallOptions {
  /** The API version of this call, overriding the client's. */
  apiVersion?: string;
  /**
   * Makes the call safe to repeat: the server replays the first answer for 24 hours. Sent on every
   * attempt; without it, a call that may be retried sends a random key of its own.
   */
  idempotencyKey?: string;
  /** The server-side time limit of the call in milliseconds (`options.timeout`). */
  timeout?: number;
  /** Aborts the call; the abort reason is thrown as is. */
  signal?: AbortSignal;
  /** The entity this call acts for, overriding the client's. */
  entityId?: string;
  /** How often this call is retried, overriding the client's `maxRetries`; 0 disables. */
  maxRetries?: number;
}

/** The settings of `client.batch`: the call's, and how the requests run together. */
export interface BatchOptions extends CallOptions {
  /**
   * `bestEffort`: every request runs on its own and gets its own result, success or error. `atomic`: all
   * or nothing in one transaction; a failing request makes the whole call throw `DispatchError` with code
   * `batch_aborted` and `details.results`. @default 'bestEffort'
   */
  mode?: 'atomic' | 'bestEffort';
}

/** The outcome of one batch request: its data, or the error it failed with (narrow with `'error' in r`). */
export type BatchItemResult<T> =
  { id: string; status: number; data: T } | { id: string; status: number; error: ErrorObject };

/** `meta` of every answer. The server may add fields beyond these three. */
export interface ResponseMeta {
  /** Server time spent, in milliseconds. */
  timing: number;
  requestId: string;
  /** The server's version (semver). */
  version: string;
  [field: string]: unknown;
}

/** What `callWithMeta` returns: the data with the envelope's `meta` and the response headers. */
export interface WithMeta<T> {
  data: T;
  meta: ResponseMeta;
  /** Response headers, e.g. `Request-Id`, `RateLimit`, `Idempotent-Replayed`. */
  headers: Headers;
  /** How many requests the call took: 1, plus one per retry. */
  attempts: number;
}

/** The `error` object of an error answer. */
export interface ErrorObject {
  type: string;
  code: string;
  message: string;
  param?: string;
  details?: Record<string, unknown>;
  docUrl?: string;
}

/** The API answered with an error. `code` is stable; branch on it, not on `message`. */
export class DispatchError extends Error {
  override readonly name = 'DispatchError';
  /** The error family, e.g. `invalid_request_error`. */
  readonly type: string;
  /** The stable error code, e.g. `payload_invalid`. */
  readonly code: string;
  /** The HTTP status; 200 for the `error` event of a stream that had opened, so branch on `code`. */
  readonly status: number;
  /** A JSON pointer to the offending field, e.g. `/payload/prompt`. */
  readonly param: string | undefined;
  readonly details: Record<string, unknown> | undefined;
  readonly docUrl: string | undefined;
  /** Quote this when asking for support. */
  readonly requestId: string | undefined;
  /** Response headers, e.g. `Retry-After` on a 429. */
  readonly headers: Headers;
  /** How many requests the call took before it gave up with this answer. */
  readonly attempts: number;

  constructor(error: ErrorObject, status: number, requestId: string | undefined, headers: Headers, attempts = 1) {
    super(error.message);
    this.type = error.type;
    this.code = error.code;
    this.status = status;
    this.param = error.param;
    this.details = error.details;
    this.docUrl = error.docUrl;
    this.requestId = requestId;
    this.headers = headers;
    this.attempts = attempts;
  }
}

/** No answer arrived: the network failed, or the client's `timeoutMs` ran out (`timedOut`). */
export class DispatchConnectionError extends Error {
  override readonly name = 'DispatchConnectionError';
  readonly timedOut: boolean;
  /** How many requests the call took before it gave up. */
  readonly attempts: number;

  constructor(message: string, options: { cause: unknown; timedOut: boolean; attempts?: number }) {
    super(message, { cause: options.cause });
    this.timedOut = options.timedOut;
    this.attempts = options.attempts ?? 1;
  }
}

/** One request in flight, under a signal that joins the caller's abort and the client's time-out. */
interface Exchange {
  response: Response;
  attempt: number;
  /** Runs a step of reading the answer; a failure becomes the caller's abort reason or a `DispatchConnectionError`. */
  read<T>(step: () => Promise<T>): Promise<T>;
  /** Stops the time-out and the abort forwarding; call it once the answer is read. */
  close(): void;
}

/** The untyped core of the client. `call` and `stream` also reach actions this client was generated without. */
export class BaseClient {
  readonly #options: ClientOptions;
  readonly #fetch: typeof fetch;
  readonly #url: string;

  constructor(options: ClientOptions) {
    this.#options = options;
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.#url = `${(options.baseUrl ?? 'http://localhost:8787').replace(/\/+$/, '')}/do`;
  }

  /** Calls `face.action` and returns its `data`; throws `DispatchError` or `DispatchConnectionError`. */
  async call<T>(face: string, action: string, payload: unknown, options?: CallOptions): Promise<T> {
    return (await this.callWithMeta<T>(face, action, payload, options)).data;
  }

  /** Like `call`, with the answer's `meta` and headers, for the request id or the rate-limit state. */
  async callWithMeta<T>(
    face: string,
    action: string,
    payload: unknown,
    options: CallOptions = {},
  ): Promise<WithMeta<T>> {
    return this.#exchange(face, action, payload, options, false, async (exchange) => {
      try {
        return answerOf<T>(exchange, await exchange.read(() => exchange.response.text()));
      } finally {
        exchange.close();
      }
    });
  }

  /**
   * Calls a streaming action (`Accept: text/event-stream`). Failures before the stream opens are retried
   * as `call`'s are; once it is open nothing is retried, and a connection that ends before the `result` or
   * `error` event throws `DispatchConnectionError`. The client's `timeoutMs` covers the whole stream.
   */
  stream<T, E extends { event: string; data: unknown } = StreamEvent>(
    face: string,
    action: string,
    payload: unknown,
    options: CallOptions = {},
    events: readonly string[] = [],
  ): DispatchStream<T, E> {
    // Our own controller, so that leaving the iteration early can abort the call as the caller's signal does.
    const controller = new AbortController();
    const { signal } = controller;
    const caller = options.signal;
    const forward = () => controller.abort(caller?.reason);
    if (caller?.aborted) forward();
    caller?.addEventListener('abort', forward, { once: true });
    const open = async (exchange: Exchange): Promise<Exchange | WithMeta<T>> => {
      if (isEventStream(exchange.response)) return exchange;
      try {
        // Refused before the stream opened: an ordinary JSON answer, retried like any other.
        return answerOf<T>(exchange, await exchange.read(() => exchange.response.text()));
      } finally {
        exchange.close();
      }
    };
    const run = async (emit: (event: E) => void): Promise<T> => {
      try {
        const opened = await this.#exchange(face, action, payload, { ...options, signal }, true, open);
        return 'data' in opened ? opened.data : await readEvents<T, E>(opened, emit, this.#url, events);
      } finally {
        caller?.removeEventListener('abort', forward);
      }
    };
    return new DispatchStream<T, E>(run, (reason) => controller.abort(reason));
  }

  /**
   * Sends the call and hands each answer to `settle`, retrying passing failures (a `DispatchError` or
   * `DispatchConnectionError` it throws) under one idempotency key.
   */
  async #exchange<R>(
    face: string,
    action: string,
    payload: unknown,
    options: CallOptions,
    stream: boolean,
    settle: (exchange: Exchange) => Promise<R>,
  ): Promise<R> {
    const maxRetries = options.maxRetries ?? this.#options.maxRetries ?? 2;
    // One key for all attempts: an attempt whose answer was lost is then replayed by the server, not run again.
    const key = options.idempotencyKey ?? (maxRetries > 0 ? newIdempotencyKey() : undefined);
    const init = this.#request(face, action, payload, options, key, stream);
    const random = this.#options.random ?? Math.random;
    const sleep = this.#options.sleep ?? abortableSleep;
    for (let attempt = 1; ; attempt++) {
      let failure: DispatchError | DispatchConnectionError;
      try {
        return await settle(await this.#send(init, options.signal, attempt));
      } catch (error) {
        const passing = error instanceof DispatchError || error instanceof DispatchConnectionError;
        if (options.signal?.aborted || !passing) throw error;
        failure = error;
      }
      const delay = attempt <= maxRetries ? retryDelay(failure, attempt - 1, random) : undefined;
      if (delay === undefined) throw failure;
      await sleep(delay, options.signal);
    }
  }

  #request(
    face: string,
    action: string,
    payload: unknown,
    options: CallOptions,
    key: string | undefined,
    stream: boolean,
  ): RequestInit {
    const headers = new Headers(this.#options.headers);
    headers.set('Authorization', `Bearer ${this.#options.apiKey}`);
    headers.set('X-Entity-ID', options.entityId ?? this.#options.entityId);
    headers.set('Content-Type', 'application/json');
    if (stream) headers.set('Accept', 'text/event-stream');
    const version = options.apiVersion ?? this.#options.apiVersion;
    if (version !== undefined) headers.set('X-API-Version', version);
    if (key !== undefined) headers.set('X-Idempotency-Key', key);
    const extra = options.timeout === undefined ? {} : { options: { timeout: options.timeout } };
    return { method: 'POST', headers, body: JSON.stringify({ face, action, payload, ...extra }) };
  }

  /**
   * Starts one attempt. Its abort signal lives until `close()`, so `timeoutMs` and the caller's signal
   * cover reading the body too, a slow one or a whole stream.
   */
  async #send(init: RequestInit, signal: AbortSignal | undefined, attempt: number): Promise<Exchange> {
    const controller = new AbortController();
    const forward = () => controller.abort(signal?.reason);
    if (signal?.aborted) forward();
    signal?.addEventListener('abort', forward, { once: true });
    const ms = this.#options.timeoutMs;
    let timedOut = false;
    const timer = ms === undefined ? undefined : setTimeout(() => ((timedOut = true), controller.abort()), ms);
    const close = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', forward);
    };
    const url = this.#url;
    let response: Response | undefined;
    async function read<T>(step: () => Promise<T>): Promise<T> {
      try {
        return await step();
      } catch (error) {
        close();
        if (signal?.aborted) throw signal.reason;
        const lost = response ? `The connection to ${url} broke off` : `Could not reach ${url}`;
        const message = timedOut ? `No complete answer from ${url} within ${ms} ms` : lost;
        throw new DispatchConnectionError(message, { cause: error, timedOut, attempts: attempt });
      }
    }
    response = await read(() => this.#fetch(url, { ...init, signal: controller.signal }));
    return { response, attempt, read, close };
  }
}

/** The data of a JSON answer with its meta, or the `DispatchError` it carries. */
function answerOf<T>({ response, attempt }: Exchange, text: string): WithMeta<T> {
  const body = parseEnvelope(text);
  if (response.ok && 'data' in body && isObject(body.meta)) {
    return { data: body.data as T, meta: body.meta as ResponseMeta, headers: response.headers, attempts: attempt };
  }
  throw errorOf(response, text, body, attempt);
}

function isEventStream(response: Response): boolean {
  return response.ok && (response.headers.get('Content-Type') ?? '').startsWith('text/event-stream');
}

const SHOWN_EVENTS = new Set<string>(['start', 'delta', 'progress']);

/**
 * Reads an open event stream up to its terminal event: hands `start`, `delta`, `progress` and the action's
 * own `events` to `emit`, skips `ping` and event names this client does not know, and returns the
 * `result`'s data or throws the `error`'s `DispatchError`. An `error` event has no status of its own:
 * `status` is the stream's 200.
 */
async function readEvents<T, E>(exchange: Exchange, emit: (event: E) => void, url: string, events: readonly string[]): Promise<T> {
  const { response, attempt } = exchange;
  let terminal: { name: string; body: Envelope } | undefined;
  const parser = createParser({
    onEvent(message) {
      const name = message.event ?? 'message';
      if (terminal || !(SHOWN_EVENTS.has(name) || events.includes(name) || name === 'result' || name === 'error')) return;
      let data: unknown;
      try {
        data = JSON.parse(message.data);
      } catch {
        throw errorOf(response, `event ${name}: ${message.data}`, {}, attempt);
      }
      if (name === 'result' || name === 'error') terminal = { name, body: isObject(data) ? data : {} };
      else emit({ event: name, data } as E);
    },
  });
  const reader = response.body?.getReader();
  const decoder = new TextDecoder();
  try {
    while (reader && !terminal) {
      const chunk = await exchange.read(() => reader.read());
      if (chunk.done) break;
      parser.feed(decoder.decode(chunk.value, { stream: true }));
    }
  } finally {
    exchange.close();
    // Nothing follows a terminal event; after a failure the body is of no use either.
    reader?.cancel().catch(() => undefined);
  }
  if (!terminal) {
    const message = `The event stream from ${url} ended before its result`;
    throw new DispatchConnectionError(message, { cause: undefined, timedOut: false, attempts: attempt });
  }
  if (terminal.name === 'result' && 'data' in terminal.body) return terminal.body.data as T;
  throw errorOf(response, JSON.stringify(terminal.body), terminal.body, attempt);
}

/**
 * How long to wait before retrying after `failure`, or `undefined` to give up. Full jitter (a random wait
 * up to the backoff step) keeps many clients that failed together from retrying together; a `Retry-After`
 * is a floor, since the server refuses earlier attempts anyway.
 */
function retryDelay(
  failure: DispatchError | DispatchConnectionError,
  retry: number,
  random: () => number,
): number | undefined {
  if (!isRetryable(failure)) return undefined;
  const floor = failure instanceof DispatchError ? retryAfterMs(failure.headers.get('Retry-After')) : 0;
  if (floor > MAX_RETRY_DELAY_MS) return undefined;
  return Math.max(floor, random() * Math.min(MAX_BACKOFF_MS, BASE_DELAY_MS * 2 ** retry));
}

function isRetryable(failure: DispatchError | DispatchConnectionError): boolean {
  if (failure instanceof DispatchConnectionError) return !failure.timedOut;
  // A replayed answer is stored under the key, so asking again with the same key only gets it again.
  if (failure.headers.get('Idempotent-Replayed') === 'true') return false;
  const { status, code } = failure;
  return status === 429 || status === 503 || (status === 409 && code === 'idempotency_key_in_use');
}

/** A `Retry-After` (delay in seconds or an HTTP date) in milliseconds from now; 0 when absent or unreadable. */
function retryAfterMs(value: string | null): number {
  if (value === null) return 0;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? 0 : Math.max(0, date - Date.now());
}

/** Resolves after `ms`, or rejects with the abort reason as soon as `signal` aborts. */
function abortableSleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const abort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', abort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', abort, { once: true });
  });
}

/** A random key; `randomUUID` is missing from browser pages not served over HTTPS, `getRandomValues` is not. */
function newIdempotencyKey(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The fields of an answer body the client reads; any of them may be missing. */
type Envelope = { data?: unknown; meta?: unknown; error?: unknown };

/** The body as an envelope: empty when it is not a JSON object. */
function parseEnvelope(text: string): Envelope {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : {};
  } catch {
    return {};
  }
}

/** The `DispatchError` for an answer that carries no data, whether or not it is an error envelope. */
function errorOf(response: Response, text: string, body: Envelope, attempts: number): DispatchError {
  const meta: { requestId?: unknown } = isObject(body.meta) ? body.meta : {};
  const requestId = typeof meta.requestId === 'string' ? meta.requestId : response.headers.get('Request-Id');
  // A proxy's error page or a cut-off body has no envelope: keep the status and a glimpse of the text.
  const message = `Unexpected ${response.status} answer: ${text.slice(0, 200) || '(empty body)'}`;
  const error = isErrorObject(body.error) ? body.error : { type: 'api_error', code: 'internal_error', message };
  return new DispatchError(error, response.status, requestId ?? undefined, response.headers, attempts);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isErrorObject(value: unknown): value is ErrorObject {
  return isObject(value) && ['type', 'code', 'message'].every((field) => typeof value[field] === 'string');
}
