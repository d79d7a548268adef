/**
 * The two response bodies of API.md §3–4: `{data, meta}` and `{error, meta}`. `meta` is the same in both.
 */
import { platform } from '../../generated/server/platform.js';
import type { CallState, Reply } from './call.js';
import type { ApiError } from './errors.js';

export interface Meta {
  timing: number;
  requestId: string;
  version: string;
}

export function responseMeta(requestId: string, startedAt: number, serverVersion: string): Meta {
  return { timing: Math.round((performance.now() - startedAt) * 100) / 100, requestId, version: serverVersion };
}

/** The `error` object of an error response (and of a failed batch request). */
export function errorObject(error: ApiError) {
  return {
    type: error.type,
    code: error.code,
    message: error.message,
    ...(error.param !== undefined ? { param: error.param } : {}),
    ...(error.details !== undefined ? { details: error.details } : {}),
    docUrl: `${platform.errorDocsUrl}#${error.code}`,
  };
}

export function errorBody(error: ApiError, m: Meta) {
  return { error: errorObject(error), meta: m };
}

/** The reply of a call that succeeded. */
export function successReply(call: CallState, serverVersion: string, data: unknown): Reply {
  return { status: 200, headers: call.responseHeaders, body: { data, meta: responseMeta(call.requestId, call.startedAt, serverVersion) } };
}

/** The reply of a call that failed once it was executing. */
export function errorReply(call: CallState, serverVersion: string, error: ApiError): Reply {
  const meta = responseMeta(call.requestId, call.startedAt, serverVersion);
  return { status: error.status, headers: { ...call.responseHeaders, ...error.headers }, body: errorBody(error, meta) };
}
