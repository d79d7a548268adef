/**
 * `ApiError`: the one way code reports an error to a caller. Status, type and retryability come from the
 * error table (the platform's codes and those face files declare), so a code means the same thing
 * everywhere, in the docs included. Codes are typed by the generated catalogue's union.
 */
import type { ErrorCode } from '../../generated/server/platform.js';
import { STANDARD_ERRORS } from '../spec/standard-errors.js';
import { isStoreUnavailable } from '../store/unavailable.js';
import type { FaceError as ErrorDefinition } from '../spec/model.js';
import { log } from './log.js';

export type { ErrorCode };

/**
 * Every code any catalogue served by this process declares. Codes never change meaning once shipped, so
 * one table serves every catalogue; registering a code with another meaning is refused.
 */
const definitions = new Map<string, ErrorDefinition>(STANDARD_ERRORS.map((e) => [e.code, e]));

/** Makes a catalogue's codes known (buildServer does it for the catalogue it serves). */
export function registerErrorCodes(errors: Iterable<ErrorDefinition>): void {
  for (const error of errors) {
    const known = definitions.get(error.code);
    if (known && (known.status !== error.status || known.type !== error.type)) {
      throw new Error(`Error code "${error.code}" is ${known.status} ${known.type} already; a catalogue cannot make it ${error.status} ${error.type}.`);
    }
    if (!known) definitions.set(error.code, error);
  }
}

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
  readonly status: number;
  readonly type: string;
  readonly param?: string;
  readonly details?: Record<string, unknown>;
  readonly headers?: Record<string, string>;
  readonly keepEffects: boolean;
  /** Whether the same request may succeed later (the error table's word for the code). */
  readonly retryable: boolean;

  constructor(code: ErrorCode, message?: string, options: ApiErrorOptions = {}) {
    const definition = definitions.get(code);
    if (!definition) throw new Error(`Unknown error code "${code}": declare it in a face file or STANDARD_ERRORS.`);
    // A refusal is an expected answer, not a fault: capturing its stack would cost more than the rest of it.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message ?? definition.message, { cause: options.cause });
    Error.stackTraceLimit = stackTraceLimit;
    this.name = 'ApiError';
    this.code = code;
    this.status = options.status ?? definition.status;
    this.type = definition.type;
    this.param = options.param;
    this.details = options.details;
    this.headers = options.headers;
    this.keepEffects = options.keepEffects === true;
    this.retryable = definition.retryable;
  }
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
  return new ApiError('internal_error', 'The server failed unexpectedly; quote the request id to support.');
}
