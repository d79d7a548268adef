/**
 * The two response bodies of API.md §3–4: `{data, meta}` and `{error, meta}`. `meta` is the same in both.
 */
import { platform } from '../../generated/server/platform.js';
import type { ApiError } from './errors.js';

export interface Meta {
  timing: number;
  requestId: string;
  version: string;
}

export function responseMeta(requestId: string, startedAt: number, serverVersion: string): Meta {
  return { timing: Math.round((performance.now() - startedAt) * 100) / 100, requestId, version: serverVersion };
}

export function errorBody(error: ApiError, m: Meta) {
  return {
    error: {
      type: error.type,
      code: error.code,
      message: error.message,
      ...(error.param !== undefined ? { param: error.param } : {}),
      ...(error.details !== undefined ? { details: error.details } : {}),
      docUrl: `${platform.errorDocsUrl}#${error.code}`,
    },
    meta: m,
  };
}
