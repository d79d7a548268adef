/**
 * The transport of the client: posts `{face, action, payload, options}` to `POST /do` and turns the answer
 * into its `data` or a `DispatchError` (a subclass per error type: `AuthenticationError`, `RateLimitError`,
 * ...), or, for a streaming call, reads its server-sent events into a `DispatchStream`. A call returns an
 * `ApiPromise` (`.withResponse()` gives the headers, status and request id too), and a list action a
 * `PagePromise`, whose page iterates every item of the pages after it (`toArray()` collects them). Calls that
 * failed for a passing reason (a lost connection, a 429, or an answer whose code the catalogue marks retryable:
 * `RETRYABLE_ERROR_CODES`, among them 409 `idempotency_key_in_use`, 500 `internal_error` and 503
 * `provider_unavailable`) before any answer or stream arrived are retried with backoff under one idempotency
 * key, so a retry never runs twice on the server: a retried 500 gets the stored answer replayed. It relies on
 * `fetch`, `ReadableStream` and `TextDecoder`, and on
 * the `eventsource-parser` package (plain ES2020, no Node built-ins) to read event streams, so it runs in
 * Node 18+ and in browsers; install that package next to the generated client.
 */
import { createParser } from 'eventsource-parser';
import { DispatchStream, type StreamEvent } from './stream.js';
import { RETRYABLE_ERROR_CODES, type ErrorCode } from './types.js';

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
   * Gives up on an attempt with no complete answer (a whole stream, for a streaming call) after this many
   * milliseconds, throwing `DispatchConnectionError` with `timedOut`. A time-out is not retried: it is the
   * caller's limit on waiting, and the attempt may still be running on the server. The generated client
   * defaults it to the server's longest time-out plus 5 seconds (`DEFAULT_TIMEOUT_MS`), so that it never
   * gives up on a call the server would still answer; `undefined` here waits without limit.
   */
  timeoutMs?: number;
  /** Extra headers sent with every call; the protocol headers above take precedence. */
  headers?: Record<string, string>;
  /** Sent as `User-Agent`; the generated client sends its package name and version. */
  userAgent?: string;
  /**
   * How often a call is retried after a lost connection, a 429 or an answer whose code is retryable
   * (`RETRYABLE_ERROR_CODES`: 409 `idempotency_key_in_use`, 500 `internal_error`, 503, ...), waiting out any
   * `Retry-After` up to 60 s; 0 disables. @default 2
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
  /**
   * The server's time limit for the action in milliseconds (`options.timeout`): past it the server stops
   * the action and answers 504 `timeout`. Compare `timeoutMs`, how long this client waits.
   */
  timeout?: number;
  /** How long this client waits for this call, overriding the client's `timeoutMs`. */
  timeoutMs?: number;
  /** Extra headers for this call, over the client's; the protocol headers take precedence. */
  headers?: Record<string, string>;
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

/** What `.withResponse()` and `callWithMeta` give: the data with the envelope's `meta`, the status and headers. */
export interface WithMeta<T> {
  data: T;
  meta: ResponseMeta;
  /** The request id (`meta.requestId`, also the `Request-Id` header): quote it when asking for support. */
  requestId: string;
  /** The HTTP status: 200. */
  status: number;
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

/**
 * The API answered with an error. `code` is stable; branch on it, not on `message`. Each error type has its
 * subclass (`AuthenticationError` for `authentication_error`, ...), so `instanceof` can pick a family.
 */
export class DispatchError extends Error {
  override readonly name: string = 'DispatchError';
  /** The error family, e.g. `invalid_request_error`. */
  readonly type: string;
  /**
   * The stable error code, e.g. `payload_invalid`: one of the catalogue's `ErrorCode`s, or, from a server
   * newer than this client, one it does not know yet.
   */
  readonly code: ErrorCode | (string & {});
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

/** 400 and the other 4xx of a request wrong as sent (410, 413, 415, ...: `invalid_request_error`); fix it before retrying. */
export class InvalidRequestError extends DispatchError {
  override readonly name: string = 'InvalidRequestError';
}

/** 401: no key, or one that is unknown, revoked or expired (`authentication_error`). */
export class AuthenticationError extends DispatchError {
  override readonly name: string = 'AuthenticationError';
}

/** 402: a payment was refused (`payment_error`); `details.declineCode` says why. */
export class PaymentError extends DispatchError {
  override readonly name: string = 'PaymentError';
}

/** 403: the key lacks a scope or the entity, or a quota is spent (`permission_error`). */
export class PermissionError extends DispatchError {
  override readonly name: string = 'PermissionError';
}

/** 404: no such face, action or resource (`not_found_error`). */
export class NotFoundError extends DispatchError {
  override readonly name: string = 'NotFoundError';
}

/** 409 or 422: the idempotency key is in use by a running call, or was used for another request (`idempotency_error`). */
export class IdempotencyError extends DispatchError {
  override readonly name: string = 'IdempotencyError';
}

/** 429: a rate limit (`rate_limit_error`); `retryAfterSeconds` says when the call would pass. */
export class RateLimitError extends DispatchError {
  override readonly name: string = 'RateLimitError';

  /** Whole seconds, from the `Retry-After` header (seconds or a date), until the call would pass. */
  get retryAfterSeconds(): number | undefined {
    const value = this.headers.get('Retry-After');
    return value === null ? undefined : Math.ceil(retryAfterMs(value) / 1000);
  }
}

/** The server failed (500), its store is unreachable or it is stopping (503), or similar (`api_error`). */
export class ServerError extends DispatchError {
  override readonly name: string = 'ServerError';
}

/** 502 or 503: the backend behind a face failed or is not configured (`provider_error`). */
export class ProviderError extends DispatchError {
  override readonly name: string = 'ProviderError';
}

/** 504: the action ran past its time-out on the server (`timeout_error`). */
export class TimeoutError extends DispatchError {
  override readonly name: string = 'TimeoutError';
}

/** An atomic batch failed (`batch_error`, code `batch_aborted`); `details.results` has every request's outcome. */
export class BatchError extends DispatchError {
  override readonly name: string = 'BatchError';
}

/** The class of each error type of docs/contract.md § Errors; any other type is a plain `DispatchError`. */
const ERROR_CLASSES: Record<string, typeof DispatchError> = {
  invalid_request_error: InvalidRequestError,
  authentication_error: AuthenticationError,
  payment_error: PaymentError,
  permission_error: PermissionError,
  not_found_error: NotFoundError,
  idempotency_error: IdempotencyError,
  rate_limit_error: RateLimitError,
  api_error: ServerError,
  provider_error: ProviderError,
  timeout_error: TimeoutError,
  batch_error: BatchError,
};

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

/**
 * What a call returns: a promise of the action's data that can also give the whole answer, as in
 * `const { data, requestId, headers } = await client.keys.get({ id }).withResponse()`. The call starts when
 * it is made, whether or not anything awaits it.
 */
export class ApiPromise<T> implements Promise<T> {
  readonly #answer: Promise<WithMeta<T>>;
  readonly [Symbol.toStringTag] = 'ApiPromise';

  constructor(answer: Promise<WithMeta<T>>) {
    this.#answer = answer;
  }

  /** The data with `meta`, the request id, the status and the response headers. */
  withResponse(): Promise<WithMeta<T>> {
    return this.#answer;
  }

  then<A = T, B = never>(onfulfilled?: ((value: T) => A | PromiseLike<A>) | null, onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<A | B> {
    return this.#answer.then((answer) => answer.data).then(onfulfilled, onrejected);
  }

  catch<B = never>(onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<T | B> {
    return this.then(undefined, onrejected);
  }

  finally(onfinally?: (() => void) | null): Promise<T> {
    return this.#answer.then((answer) => answer.data).finally(onfinally);
  }
}

/**
 * How a list action asks for its next page: `startingAfter` set to a field of the last item (`id`, or what
 * the face file names as its `pageBy`), or `cursor` set to the page's `nextCursor`.
 */
export type Paging = { after: string } | { cursor: true };

/** What a list action answers: a page of items, and whether more follow. */
export interface ListResult {
  items: unknown[];
  hasMore: boolean;
  /** Where the next page starts, for actions that page by cursor. */
  nextCursor?: string;
}

/**
 * A page of a list action: its result as the server sent it, `nextPage()` (null after the last), and, as
 * an async iterable, every item of this page and of the pages after it.
 */
export type Page<R extends ListResult, I = R['items'][number]> = R & AsyncIterable<I> & { nextPage(): Promise<Page<R, I> | null> };

/** What a list action returns: the promise of its first page, and an async iterable of every item. */
export class PagePromise<R extends ListResult, I = R['items'][number]> extends ApiPromise<Page<R, I>> implements AsyncIterable<I> {
  async *[Symbol.asyncIterator](): AsyncIterator<I> {
    yield* await this;
  }

  /**
   * Every item of every page, in order, in one array (as stripe-node's `autoPagingToArray`): the pages are asked
   * for one after another until the last, or until `limit` items are collected, and no page past those is asked for.
   */
  async toArray(options: { limit?: number } = {}): Promise<I[]> {
    const { limit = Infinity } = options;
    if (limit !== Infinity && !(Number.isInteger(limit) && limit >= 1)) {
      throw new RangeError(`toArray: limit is a whole number of at least 1, not ${String(limit)}.`);
    }
    const collected: I[] = [];
    for await (const item of this) {
      collected.push(item);
      if (collected.length >= limit) break;
    }
    return collected;
  }
}

async function* items<I>(first: Page<ListResult, I>): AsyncGenerator<I> {
  for (let page: Page<ListResult, I> | null = first; page; page = await page.nextPage()) {
    for (const item of page.items) yield item as I;
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

/**
 * `value`, when an HTTP header can carry it (visible ASCII); else a TypeError naming the option and the first
 * character it cannot send. `fetch` would throw its own TypeError on every call, naming neither (a key pasted
 * with a `…` placeholder in it, say).
 */
function checkedHeaderValue(option: string, value: string): string {
  if (typeof value !== 'string' || value === '') throw new TypeError(`${option} is required: a non-empty string.`);
  const at = value.search(/[^\x21-\x7e]/);
  if (at >= 0) {
    const code = value.codePointAt(at)!.toString(16).toUpperCase().padStart(4, '0');
    throw new TypeError(`${option} holds U+${code} at position ${at}, which an HTTP header cannot carry: give the value itself, without placeholders or spaces.`);
  }
  return value;
}

/** The untyped core of the client. `call` and `stream` also reach actions this client was generated without. */
export class BaseClient {
  readonly #options: ClientOptions;
  readonly #fetch: typeof fetch;
  readonly #url: string;

  constructor(options: ClientOptions) {
    checkedHeaderValue('apiKey', options.apiKey);
    checkedHeaderValue('entityId', options.entityId);
    this.#options = options;
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.#url = `${(options.baseUrl ?? 'http://localhost:8787').replace(/\/+$/, '')}/do`;
  }

  /**
   * Calls `face.action` and resolves to its `data`, or rejects with a `DispatchError` (of its type's class)
   * or a `DispatchConnectionError`; `.withResponse()` gives the whole answer.
   */
  call<T>(face: string, action: string, payload: unknown, options?: CallOptions): ApiPromise<T> {
    return new ApiPromise(this.callWithMeta<T>(face, action, payload, options));
  }

  /**
   * Calls a list action (`{items, hasMore}`) and resolves to its first page. The page is also an
   * async iterable of every item, this page's and the next pages' (asked for as the loop gets to them), as
   * is the returned promise: `for await (const key of client.keys.list())`. The next page is asked for as
   * `paging` says (see `Paging`).
   */
  list<R extends ListResult, I = R['items'][number]>(
    face: string,
    action: string,
    payload: object,
    options: CallOptions = {},
    paging: Paging = { after: 'id' },
  ): PagePromise<R, I> {
    // An idempotency key names one request: the pages after the first are requests of their own.
    const { idempotencyKey: _first, ...later } = options;
    const fetchPage = (sent: Record<string, unknown>, first: boolean): Promise<WithMeta<Page<R, I>>> =>
      this.callWithMeta<R>(face, action, sent, first ? options : later).then((answer) => ({ ...answer, data: asPage(answer.data) }));
    const nextPayload = (page: R): Record<string, unknown> | undefined => {
      if (!page.hasMore) return undefined;
      const value = 'cursor' in paging ? page.nextCursor : (page.items.at(-1) as Record<string, unknown> | undefined)?.[paging.after];
      if (typeof value !== 'string') {
        const field = 'cursor' in paging ? 'nextCursor' : `${paging.after} of its last item`;
        throw new Error(`${face}.${action} says more pages follow but gives no ${field} to ask for them with.`);
      }
      return { ...payload, ...('cursor' in paging ? { cursor: value } : { startingAfter: value }) };
    };
    const asPage = (result: R): Page<R, I> => {
      const following = nextPayload(result);
      // Not enumerable: the page prints and serializes as the result the server sent.
      return Object.defineProperties(result, {
        nextPage: { value: () => (following ? fetchPage(following, false).then((answer) => answer.data) : Promise.resolve(null)) },
        [Symbol.asyncIterator]: { value: () => items<I>(result as unknown as Page<ListResult, I>) },
      }) as Page<R, I>;
    };
    return new PagePromise<R, I>(fetchPage({ ...payload }, true));
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
        return await settle(await this.#send(init, options, attempt));
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
    for (const [name, value] of Object.entries(options.headers ?? {})) headers.set(name, value);
    if (this.#options.userAgent !== undefined && !headers.has('User-Agent')) headers.set('User-Agent', this.#options.userAgent);
    headers.set('Authorization', `Bearer ${this.#options.apiKey}`);
    headers.set('X-Entity-ID', options.entityId === undefined ? this.#options.entityId : checkedHeaderValue('entityId', options.entityId));
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
  async #send(init: RequestInit, options: CallOptions, attempt: number): Promise<Exchange> {
    const { signal } = options;
    const controller = new AbortController();
    const forward = () => controller.abort(signal?.reason);
    if (signal?.aborted) forward();
    signal?.addEventListener('abort', forward, { once: true });
    const ms = options.timeoutMs ?? this.#options.timeoutMs;
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
    const meta = body.meta as ResponseMeta;
    return { data: body.data as T, meta, requestId: meta.requestId, status: response.status, headers: response.headers, attempts: attempt };
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
  return failure.status === 429 || (RETRYABLE_ERROR_CODES as ReadonlySet<string>).has(failure.code);
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
  const ErrorClass = Object.hasOwn(ERROR_CLASSES, error.type) ? ERROR_CLASSES[error.type]! : DispatchError;
  return new ErrorClass(error, response.status, requestId ?? undefined, response.headers, attempts);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isErrorObject(value: unknown): value is ErrorObject {
  return isObject(value) && ['type', 'code', 'message'].every((field) => typeof value[field] === 'string');
}
