/**
 * The transport of the client: posts `{face, action, payload, options}` to `POST /do` and turns the answer
 * into its `data` or a `DispatchError`. It relies on `fetch` alone, so it runs in Node 18+ and in browsers.
 */

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
  /** Gives up on a call with no complete answer after this many milliseconds. */
  timeoutMs?: number;
  /** Extra headers sent with every call; the protocol headers above take precedence. */
  headers?: Record<string, string>;
}

/** Settings of one call. */
export interface CallOptions {
  /** The API version of this call, overriding the client's. */
  apiVersion?: string;
  /** Makes the call safe to repeat: the server replays the first answer for 24 hours. */
  idempotencyKey?: string;
  /** The server-side time limit of the call in milliseconds (`options.timeout`). */
  timeout?: number;
  /** Aborts the call; the abort reason is thrown as is. */
  signal?: AbortSignal;
  /** The entity this call acts for, overriding the client's. */
  entityId?: string;
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

  constructor(error: ErrorObject, status: number, requestId: string | undefined, headers: Headers) {
    super(error.message);
    this.type = error.type;
    this.code = error.code;
    this.status = status;
    this.param = error.param;
    this.details = error.details;
    this.docUrl = error.docUrl;
    this.requestId = requestId;
    this.headers = headers;
  }
}

/** No answer arrived: the network failed, or the client's `timeoutMs` ran out (`timedOut`). */
export class DispatchConnectionError extends Error {
  override readonly name = 'DispatchConnectionError';
  readonly timedOut: boolean;

  constructor(message: string, options: { cause: unknown; timedOut: boolean }) {
    super(message, { cause: options.cause });
    this.timedOut = options.timedOut;
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
  async callWithMeta<T>(face: string, action: string, payload: unknown, options?: CallOptions): Promise<WithMeta<T>> {
    const { response, text } = await this.#send(this.#request(face, action, payload, options), options?.signal);
    const body = parseEnvelope(text);
    if (response.ok && 'data' in body && isObject(body.meta)) {
      return { data: body.data as T, meta: body.meta as ResponseMeta, headers: response.headers };
    }
    throw errorOf(response, text, body);
  }

  #request(face: string, action: string, payload: unknown, options: CallOptions = {}): RequestInit {
    const headers = new Headers(this.#options.headers);
    headers.set('Authorization', `Bearer ${this.#options.apiKey}`);
    headers.set('X-Entity-ID', options.entityId ?? this.#options.entityId);
    headers.set('Content-Type', 'application/json');
    const version = options.apiVersion ?? this.#options.apiVersion;
    if (version !== undefined) headers.set('X-API-Version', version);
    if (options.idempotencyKey !== undefined) headers.set('X-Idempotency-Key', options.idempotencyKey);
    const extra = options.timeout === undefined ? {} : { options: { timeout: options.timeout } };
    return { method: 'POST', headers, body: JSON.stringify({ face, action, payload, ...extra }) };
  }

  /** Sends and reads the whole answer under one abort signal, so `timeoutMs` covers a slow body too. */
  async #send(init: RequestInit, signal: AbortSignal | undefined): Promise<{ response: Response; text: string }> {
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
      throw new DispatchConnectionError(message, { cause: error, timedOut });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', forward);
    }
  }
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
function errorOf(response: Response, text: string, body: Envelope): DispatchError {
  const meta: { requestId?: unknown } = isObject(body.meta) ? body.meta : {};
  const requestId = typeof meta.requestId === 'string' ? meta.requestId : response.headers.get('Request-Id');
  // A proxy's error page or a cut-off body has no envelope: keep the status and a glimpse of the text.
  const message = `Unexpected ${response.status} answer: ${text.slice(0, 200) || '(empty body)'}`;
  const error = isErrorObject(body.error) ? body.error : { type: 'api_error', code: 'internal_error', message };
  return new DispatchError(error, response.status, requestId ?? undefined, response.headers);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isErrorObject(value: unknown): value is ErrorObject {
  return isObject(value) && ['type', 'code', 'message'].every((field) => typeof value[field] === 'string');
}
