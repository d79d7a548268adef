/**
 * `ApiError`: the one way code reports an error to a caller. Status, type and retryability come from the
 * generated error table (the platform's codes and those face files declare), so a code means the same
 * thing everywhere, in the docs included.
 */
import { errors } from '../../generated/server/platform.js';

export interface ApiErrorOptions {
  /** JSON pointer of the offending field, e.g. `/payload/prompt`. */
  param?: string;
  details?: Record<string, unknown>;
  /** Extra response headers, e.g. `Retry-After`. */
  headers?: Record<string, string>;
  /** Overrides the code's status; only `batch_aborted` uses it, to answer with the failing request's. */
  status?: number;
  cause?: unknown;
}

export class ApiError extends Error {
  readonly code: string;
  readonly status: number;
  readonly type: string;
  readonly param?: string;
  readonly details?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(code: string, message?: string, options: ApiErrorOptions = {}) {
    const definition = errors.get(code);
    if (!definition) throw new Error(`Unknown error code "${code}": declare it in a face file or STANDARD_ERRORS.`);
    super(message ?? definition.message, { cause: options.cause });
    this.name = 'ApiError';
    this.code = code;
    this.status = options.status ?? definition.status;
    this.type = definition.type;
    this.param = options.param;
    this.details = options.details;
    this.headers = options.headers;
  }
}

/** Any thrown value as an ApiError; anything unexpected is logged here and leaves as a 500 that reveals nothing. */
export function toApiError(error: unknown, requestId: string): ApiError {
  if (error instanceof ApiError) return error;
  console.error(`[${requestId}] internal error:`, error);
  return new ApiError('internal_error', 'The server failed unexpectedly; quote the request id to support.');
}
