/**
 * The two response bodies of docs/contract.md § Success, § Errors: `{data, meta}` and `{error, meta}`. `meta` is the same in both.
 */
import type { CallState, Reply } from './call.js';
import type { ApiError } from '../core/errors.js';
import type { Runtime } from './runtime.js';

export interface Meta {
  timing: number;
  requestId: string;
  version: string;
}

export function responseMeta(requestId: string, startedAt: number, serverVersion: string): Meta {
  return { timing: Math.round((performance.now() - startedAt) * 100) / 100, requestId, version: serverVersion };
}

/** The `error` object of an error response (and of a failed batch request). */
export function errorObject(error: ApiError, errorDocsUrl: string) {
  return {
    type: error.type,
    code: error.code,
    message: error.message,
    ...(error.param !== undefined ? { param: error.param } : {}),
    ...(error.details !== undefined ? { details: error.details } : {}),
    docUrl: `${errorDocsUrl}#${error.code}`,
  };
}

/** The reply of a call that succeeded. */
export function successReply(call: CallState, runtime: Runtime, data: unknown): Reply {
  return { status: 200, headers: call.responseHeaders, body: { data, meta: responseMeta(call.requestId, call.startedAt, runtime.serverVersion) } };
}

/** The reply of a call that failed, refused or while executing. */
export function errorReply(call: CallState, runtime: Runtime, error: ApiError): Reply {
  const meta = responseMeta(call.requestId, call.startedAt, runtime.serverVersion);
  return {
    status: error.status,
    headers: error.headers ? { ...call.responseHeaders, ...error.headers } : call.responseHeaders,
    body: { error: errorObject(error, runtime.catalogue.platform.errorDocsUrl), meta },
  };
}
