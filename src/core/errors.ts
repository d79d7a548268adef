/**
 * `ApiError`: the one way code reports an error to a caller. It names a code; what the code means (status,
 * type, retryability, default message) is read from the error table of the catalogue being served, when the
 * error becomes an answer (`answerable`). No table is kept here: two servers over two catalogues in one
 * process each answer only the codes their own catalogue declares. Codes are typed by the generated
 * catalogue's union.
 */
import type { ErrorCode } from '../../generated/server/platform.js';
import { STANDARD_ERRORS } from '../spec/standard-errors.js';
import { isStoreUnavailable } from '../store/unavailable.js';
import type { ErrorDefinition } from './dispatch-types.js';
import { log } from './log.js';

export type { ErrorCode };

/** A catalogue's error codes and what each means (`Catalogue.errors`). */
export type ErrorTable = ReadonlyMap<string, ErrorDefinition>;

/**
 * The platform's own codes. The core raises them whatever it serves, so they mean the same in every
 * catalogue (face files may not declare them) and are read here, not from the served table.
 */
const STANDARD: ErrorTable = new Map(STANDARD_ERRORS.map((e) => [e.code, e]));

export interface ApiErrorOptions {
  /** JSON pointer of the offending field, e.g. `/payload/prompt`. */
  param?: string;
  details?: Record<string, unknown>;
  /** Extra response headers, e.g. `Retry-After`. */
  headers?: Record<string, string>;
  /** Overrides the code's status; only `batch_aborted` uses it, to answer with the failing request's. */
  status?: number;
  cause?: unknown;
  /**
   * The call's store effects and events commit although it answers this error, as Stripe records a declined
   * payment on its intent. An atomic batch still rolls everything back.
   */
  keepEffects?: boolean;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly param?: string;
  readonly details?: Record<string, unknown>;
  readonly headers?: Record<string, string>;
  readonly keepEffects: boolean;
  /** The status the answer takes instead of its code's (`ApiErrorOptions.status`). */
  readonly statusOverride?: number;

  /**
   * Without `message`, a platform code has its own at once; a face's code is left empty, to be answered
   * with the message the served catalogue gives it.
   */
  constructor(code: ErrorCode, message?: string, options: ApiErrorOptions = {}) {
    // A refusal is an expected answer, not a fault: capturing its stack would cost more than the rest of it.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message ?? STANDARD.get(code)?.message ?? '', { cause: options.cause });
    Error.stackTraceLimit = stackTraceLimit;
    this.name = 'ApiError';
    this.code = code;
    this.param = options.param;
    this.details = options.details;
    this.headers = options.headers;
    this.keepEffects = options.keepEffects === true;
    if (options.status !== undefined) this.statusOverride = options.status;
  }
}

/** What an error answers: its status, type, message, and whether the same request may succeed later. */
export interface ErrorMeaning {
  readonly status: number;
  readonly type: string;
  readonly message: string;
  readonly retryable: boolean;
}

/** What `error` means to the catalogue whose table is `errors`; undefined when that catalogue does not declare its code. */
export function meaningOf(error: ApiError, errors: ErrorTable): ErrorMeaning | undefined {
  const definition = STANDARD.get(error.code) ?? errors.get(error.code);
  return definition && meaning(error, definition);
}

function meaning(error: ApiError, definition: ErrorDefinition): ErrorMeaning {
  return {
    status: error.statusOverride ?? definition.status,
    type: definition.type,
    // An empty message is the code's own: a face's code thrown without one (or passed on as it was).
    message: error.message || definition.message,
    retryable: definition.retryable,
  };
}

const internalError = () => new ApiError('internal_error', 'The server failed unexpectedly; quote the request id to support.');

/**
 * Any thrown value (`toApiError`) as the catalogue whose table is `errors` answers it. A code that catalogue
 * does not declare was thrown by code written for another (or mistyped): a fault, logged here and answered
 * as the 500 that reveals nothing, never guessed at from a table this server does not serve.
 */
export function answerable(thrown: unknown, errors: ErrorTable, requestId: string): { error: ApiError; meaning: ErrorMeaning } {
  const error = toApiError(thrown, requestId);
  const known = meaningOf(error, errors);
  if (known) return { error, meaning: known };
  log.error({ requestId, code: error.code, err: error }, 'error code not declared by the served catalogue');
  const fault = internalError();
  return { error: fault, meaning: meaning(fault, STANDARD.get(fault.code)!) };
}

/**
 * `payload_invalid` for one field a handler checked beyond its schema: the message names the field, and
 * `details.errors` has the one entry the validation stage would have written (`keyword` says which check).
 */
export function invalidField(param: string, message: string, keyword: string): ApiError {
  return new ApiError('payload_invalid', `${param}: ${message}.`, { param, details: { errors: [{ param, message, keyword }] } });
}

/** Any thrown value as an ApiError; anything unexpected is logged here and leaves as a 500 that reveals nothing. */
export function toApiError(error: unknown, requestId: string): ApiError {
  if (error instanceof ApiError) return error;
  if (isStoreUnavailable(error)) {
    log.error({ requestId, detail: (error as Error).message }, 'store unavailable');
    return new ApiError('store_unavailable', 'The store cannot be reached right now; retry shortly.', { headers: { 'Retry-After': '1' } });
  }
  log.error({ requestId, err: error }, 'internal error');
  return internalError();
}
