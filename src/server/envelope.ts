/**
 * The two response bodies of docs/contract.md § Success, § Errors: `{data, meta}` and `{error, meta}`. `meta` is the same in both.
 * Each body knows its own JSON text (`bodyText`), which the lane writes and an idempotency record stores.
 */
import type { CallState, Reply } from './call.js';
import { answerable, type ApiError, type ErrorMeaning } from '../core/errors.js';
import type { Runtime } from './runtime.js';
import { resultSerializerOf, type ResultSerializer } from './result-serializer.js';

export interface Meta {
  timing: number;
  requestId: string;
  version: string;
}

export function responseMeta(requestId: string, startedAt: number, serverVersion: string): Meta {
  return { timing: Math.round((performance.now() - startedAt) * 100) / 100, requestId, version: serverVersion };
}

/** The `error` object of an error response (and of a failed batch request), `meaning` what its code means in the served catalogue. */
export function errorObject(error: ApiError, meaning: ErrorMeaning, errorDocsUrl: string) {
  // Filled in the order the envelope lists its fields, without an object for each optional one.
  const object: Partial<ErrorBody> = { type: meaning.type, code: error.code, message: meaning.message };
  if (error.param !== undefined) object.param = error.param;
  if (error.details !== undefined) object.details = error.details;
  object.docUrl = `${errorDocsUrl}#${error.code}`;
  return object as ErrorBody;
}

/** The `error` object of the envelope, its fields in this order. */
interface ErrorBody {
  type: string;
  code: string;
  message: string;
  param?: string;
  details?: Record<string, unknown>;
  docUrl: string;
}

/**
 * `{data, meta}`. A class, with `ErrorEnvelope`, so that its text is made once when it is both answered and
 * stored (an idempotent call's), and with `meta` written out rather than walked: a refusal's envelope took
 * JSON.stringify 0.87 µs, made in parts about 0.3. JSON sees only the two fields, so the text is the one
 * JSON.stringify gives, byte for byte.
 */
export class SuccessEnvelope {
  #text: string | undefined;
  readonly #serializer: ResultSerializer | undefined;

  /** `serializer`: the one compiled from the action's result schema, which writes `data` faster where it can. */
  constructor(
    readonly data: unknown,
    readonly meta: Meta,
    serializer?: ResultSerializer,
  ) {
    this.#serializer = serializer;
  }

  text(): string {
    // What JSON.stringify treats apart (a toJSON, called with the key "data"; an absent or unwritable value) takes its own way.
    this.#text ??= plainValue(this.data) ? `{"data":${this.#serializer?.(this.data) ?? JSON.stringify(this.data)},"meta":${metaText(this.meta)}}` : JSON.stringify(this);
    return this.#text;
  }
}

/** `{error, meta}`, its `error` made by errorObject: a plain object. */
export class ErrorEnvelope {
  #text: string | undefined;

  constructor(
    readonly error: ErrorBody,
    readonly meta: Meta,
  ) {}

  text(): string {
    return (this.#text ??= `{"error":${JSON.stringify(this.error)},"meta":${metaText(this.meta)}}`);
  }
}

/** The JSON text of a reply's body: an envelope's own, JSON.stringify's for any other. */
export const bodyText = (body: unknown): string => (body instanceof SuccessEnvelope || body instanceof ErrorEnvelope ? body.text() : JSON.stringify(body));

/** A value JSON.stringify writes as it stands, with no toJSON of its own: an object, a string, a finite number or a boolean. */
function plainValue(value: unknown): boolean {
  if (value === null) return true;
  switch (typeof value) {
    case 'object':
      return typeof (value as { toJSON?: unknown }).toJSON !== 'function';
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    default:
      return false;
  }
}

/** `meta` as JSON.stringify writes it: its timing is a finite number, whose JSON is its String. */
const metaText = (meta: Meta) => `{"timing":${meta.timing},"requestId":${JSON.stringify(meta.requestId)},"version":${JSON.stringify(meta.version)}}`;

/** The reply of a call that succeeded. */
export function successReply(call: CallState, runtime: Runtime, data: unknown): Reply {
  const meta = responseMeta(call.requestId, call.startedAt, runtime.serverVersion);
  return { status: 200, headers: call.responseHeaders, body: new SuccessEnvelope(data, meta, resultSerializerOf(call.action)) };
}

/** Codes of a key that was sent and refused: RFC 6750 § 3.1's `invalid_token`. */
const REFUSED_KEY = new Set(['api_key_invalid', 'api_key_revoked', 'api_key_expired']);

/**
 * The challenge every 401 carries (RFC 7235 § 3.1 asks for one): the API's scheme, Bearer, with RFC 6750's error
 * when a key was sent and refused; a request without a key, or a face's own 401, gets the scheme alone (§ 3).
 */
const challenge = (code: string) => (REFUSED_KEY.has(code) ? 'Bearer error="invalid_token"' : 'Bearer');

/**
 * The reply of a call that failed, refused or while executing. Here a code is given its meaning, the served
 * catalogue's: every error answer of a call (a stream's `error` event and a stored reply included) is made here.
 */
export function errorReply(call: CallState, runtime: Runtime, thrown: ApiError): Reply {
  return answeredError(call, runtime, answerable(thrown, runtime.catalogue.errors, call.requestId));
}

/** The reply of an error whose meaning the caller has resolved already (`answerable`), for a decision of its own. */
export function answeredError(call: CallState, runtime: Runtime, { error, meaning }: ReturnType<typeof answerable>): Reply {
  const meta = responseMeta(call.requestId, call.startedAt, runtime.serverVersion);
  let headers = call.responseHeaders;
  if (meaning.status === 401 || error.headers) {
    headers = { ...call.responseHeaders };
    if (meaning.status === 401) headers['WWW-Authenticate'] = challenge(error.code);
    if (error.headers) Object.assign(headers, error.headers);
  }
  return {
    status: meaning.status,
    headers,
    body: new ErrorEnvelope(errorObject(error, meaning, runtime.catalogue.platform.errorDocsUrl), meta),
  };
}
