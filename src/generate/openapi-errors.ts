/**
 * The error responses of the OpenAPI document: each operation lists the statuses it can answer and, under
 * each, the codes that status carries (the pipeline's for its action, src/generate/pipeline-errors.ts, and its
 * handler's, src/spec/action-errors.ts) in the response's description, an `x-error-codes` extension and one
 * example per code. Operations that answer a status with the same codes share one response component: the
 * set most operations answer is `Error<status>`, any other `Error<status>_<Operation>` after the first
 * operation that answers it. Each code's example is a component of its own (`components.examples.<code>`).
 */
import type { FaceError, JsonSchema } from '../spec/model.js';
import { pascalCase } from '../spec/resolve.js';
import { EXAMPLE_META } from './openapi-actions.js';
import { ref } from './openapi-platform.js';

/** The codes an operation answers under each status, statuses and codes sorted (plain JSON: faces' parts are memoized). */
export type StatusCodes = [status: number, codes: string[]][];

const REASONS: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthenticated',
  402: 'Payment required',
  403: 'Forbidden',
  404: 'Not found',
  408: 'Request time-out',
  409: 'Conflict',
  410: 'Gone',
  413: 'Payload too large',
  414: 'URI too long',
  415: 'Unsupported media type',
  422: 'Unprocessable content',
  429: 'Too many requests',
  431: 'Request headers too large',
  499: 'Client closed request',
  500: 'Internal error',
  501: 'Not implemented',
  502: 'Bad gateway',
  503: 'Service unavailable',
  504: 'Gateway time-out',
};

const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Sets of codes by status as StatusCodes. */
function sorted(sets: Map<number, Set<string>>): StatusCodes {
  return [...sets.keys()].sort((a, b) => a - b).map((status) => [status, [...sets.get(status)!].sort(byString)]);
}

function add(sets: Map<number, Set<string>>, status: number, code: string): void {
  let set = sets.get(status);
  if (!set) sets.set(status, (set = new Set()));
  set.add(code);
}

/** `codes` by the status each answers; a code the table lacks is a generator bug. */
export function byStatus(codes: Iterable<string>, table: ReadonlyMap<string, FaceError>): StatusCodes {
  const sets = new Map<number, Set<string>>();
  for (const code of codes) {
    const error = table.get(code);
    if (!error) throw new Error(`No error is declared with the code ${code}.`);
    add(sets, error.status, code);
  }
  return sorted(sets);
}

/** The union of several operations' codes, status by status. */
export function unionOf(all: Iterable<StatusCodes>): StatusCodes {
  const sets = new Map<number, Set<string>>();
  for (const codes of all) for (const [status, list] of codes) for (const code of list) add(sets, status, code);
  return sorted(sets);
}

/**
 * `codes` with `batch_aborted` also under each status of `requests`: an atomic batch whose request fails
 * answers it with that request's status (docs/contract.md § Batches).
 */
export function withBatchAborted(codes: StatusCodes, requests: StatusCodes): StatusCodes {
  return unionOf([codes, requests.map(([status]): [number, string[]] => [status, ['batch_aborted']])]);
}

/** The error responses of a whole document, named once every operation's codes are known. */
export interface ErrorResponses {
  /** Each operation's error responses by status, as references to the components. */
  refs: Map<string, Record<string, JsonSchema>>;
  components: Record<string, JsonSchema>;
  examples: Record<string, JsonSchema>;
}

/** Names and writes the responses of `operations` (operation id and its codes), in document order. */
export function errorResponses(operations: [operationId: string, codes: StatusCodes][], table: ReadonlyMap<string, FaceError>, errorDocsUrl: string): ErrorResponses {
  const key = (status: number, codes: string[]) => `${status} ${codes.join(' ')}`;
  const uses = new Map<string, { status: number; codes: string[]; count: number; first: string }>();
  for (const [id, codes] of operations) {
    for (const [status, list] of codes) {
      const found = uses.get(key(status, list));
      if (found) found.count += 1;
      else uses.set(key(status, list), { status, codes: list, count: 1, first: id });
    }
  }
  const names = new Map<string, string>();
  const commonest = new Map<number, { count: number; key: string }>();
  for (const [k, use] of uses) if ((commonest.get(use.status)?.count ?? 0) < use.count) commonest.set(use.status, { count: use.count, key: k });
  for (const [k, use] of uses) {
    names.set(k, commonest.get(use.status)!.key === k ? `Error${use.status}` : `Error${use.status}_${pascalCase(use.first)}`);
  }
  const components: Record<string, JsonSchema> = {};
  const keys = [...uses.keys()].sort((a, b) => byString(names.get(a)!, names.get(b)!));
  for (const k of keys) components[names.get(k)!] = response(uses.get(k)!.status, uses.get(k)!.codes);
  const refs = new Map(operations.map(([id, codes]) => [id, Object.fromEntries(codes.map(([status, list]) => [String(status), ref('responses', names.get(key(status, list))!)]))]));
  const used = [...new Set([...uses.values()].flatMap((use) => use.codes))].sort(byString);
  const examples = Object.fromEntries(used.map((code) => [code, errorExample(table.get(code)!, errorDocsUrl)]));
  return { refs, components, examples };
}

function response(status: number, codes: string[]): JsonSchema {
  return {
    description: `${REASONS[status] ?? 'Error'}: ${codes.map((code) => `\`${code}\``).join(', ')}.${status === 499 ? ' Only ever a replay, under the idempotency key of a stream whose client went away.' : ''}`,
    headers: errorHeaders(status),
    'x-error-codes': codes,
    content: {
      'application/json': {
        schema: ref('schemas', 'ErrorEnvelope'),
        examples: Object.fromEntries(codes.map((code) => [code, { $ref: `#/components/examples/${code}` }])),
      },
    },
  };
}

/** The headers of an error answer (docs/contract.md § Errors, § Rate limits, § Idempotency, § Versions). */
function errorHeaders(status: number): Record<string, JsonSchema> {
  return {
    'Request-Id': ref('headers', 'RequestId'),
    'X-API-Version': ref('headers', 'ApiVersion'),
    'RateLimit-Policy': ref('headers', 'RateLimitPolicy'),
    RateLimit: ref('headers', 'RateLimit'),
    // Every 401 says how to authenticate (RFC 6750 § 3).
    ...(status === 401 ? { 'WWW-Authenticate': ref('headers', 'WwwAuthenticate') } : {}),
    // 429 always says when to come back; a call still running (409) and a store or server that is
    // unavailable or stopping (503) say it when they can.
    ...(status === 429 ? { 'Retry-After': ref('headers', 'RateLimitRetryAfter') } : {}),
    ...(status === 409 || status === 503 ? { 'Retry-After': ref('headers', 'RetryAfter') } : {}),
    // A stored error replayed under its idempotency key, and an error in a deprecated version.
    'Idempotent-Replayed': ref('headers', 'IdempotentReplayed'),
    Deprecation: ref('headers', 'Deprecation'),
    Sunset: ref('headers', 'Sunset'),
    Link: ref('headers', 'Link'),
  };
}

function errorExample(error: FaceError, errorDocsUrl: string): JsonSchema {
  return {
    summary: error.message,
    value: {
      error: { type: error.type, code: error.code, message: error.message, docUrl: `${errorDocsUrl}#${error.code}` },
      meta: EXAMPLE_META,
    },
  };
}
