/**
 * The transport of the client: posts `{face, action, payload, options}` to `POST /do` and turns the answer
 * into its `data` or a `DispatchError`. Calls that failed for a passing reason (429, 503, 409
 * `idempotency_key_in_use`, a lost connection) are retried with backoff under one idempotency key, so a
 * retry never runs twice on the server. It relies on `fetch` alone, so it runs in Node 18+ and in browsers.
 */

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

/** The untyped core of the client. `call` also reaches actions this client was generated without. */
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
    const maxRetries = options.maxRetries ?? this.#options.maxRetries ?? 2;
    // One key for all attempts: an attempt whose answer was lost is then replayed by the server, not run again.
    const key = options.idempotencyKey ?? (maxRetries > 0 ? newIdempotencyKey() : undefined);
    const init = this.#request(face, action, payload, options, key);
    const random = this.#options.random ?? Math.random;
    const sleep = this.#options.sleep ?? abortableSleep;
    for (let attempt = 1; ; attempt++) {
      let failure: DispatchError | DispatchConnectionError;
      try {
        const { response, text } = await this.#send(init, options.signal, attempt);
        const body = parseEnvelope(text);
        if (response.ok && 'data' in body && isObject(body.meta)) {
          return {
            data: body.data as T,
            meta: body.meta as ResponseMeta,
            headers: response.headers,
            attempts: attempt,
          };
        }
        failure = errorOf(response, text, body, attempt);
      } catch (error) {
        if (options.signal?.aborted || !(error instanceof DispatchConnectionError)) throw error;
        failure = error;
      }
      const delay = attempt <= maxRetries ? retryDelay(failure, attempt - 1, random) : undefined;
      if (delay === undefined) throw failure;
      await sleep(delay, options.signal);
    }
  }

  #request(face: string, action: string, payload: unknown, options: CallOptions, key: string | undefined): RequestInit {
    const headers = new Headers(this.#options.headers);
    headers.set('Authorization', `Bearer ${this.#options.apiKey}`);
    headers.set('X-Entity-ID', options.entityId ?? this.#options.entityId);
    headers.set('Content-Type', 'application/json');
    const version = options.apiVersion ?? this.#options.apiVersion;
    if (version !== undefined) headers.set('X-API-Version', version);
    if (key !== undefined) headers.set('X-Idempotency-Key', key);
    const extra = options.timeout === undefined ? {} : { options: { timeout: options.timeout } };
    return { method: 'POST', headers, body: JSON.stringify({ face, action, payload, ...extra }) };
  }

  /** Sends and reads the whole answer under one abort signal, so `timeoutMs` covers a slow body too. */
  async #send(
    init: RequestInit,
    signal: AbortSignal | undefined,
    attempt: number,
  ): Promise<{ response: Response; text: string }> {
    const controller = new AbortController();
    const forward = () => controller.abort(signal?.reason);
    if (signal?.aborted) forward();
    signal?.addEventListener('abort', forward, { once: true });
    const ms = this.#options.timeoutMs;
    let timedOut = false;
    const timer = ms === undefined ? undefined : setTimeout(() => ((timedOut = true), controller.abort()), ms);
    try {
      const response = await this.#fetch(this.#url, { ...init, signal: controller.signal });
      return { response, text: await response.text() };
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      const message = timedOut ? `No answer from ${this.#url} within ${ms} ms` : `Could not reach ${this.#url}`;
      throw new DispatchConnectionError(message, { cause: error, timedOut, attempts: attempt });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', forward);
    }
  }
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
