/**
 * The platform's codes the pipeline answers for a call of an action (docs/contract.md § Pipeline), stage by
 * stage as src/server raises them; the codes an action's own handler answers come from its face file
 * (src/spec/action-errors.ts). What any request may meet before it is read as a call of a route (a malformed
 * request line, headers too large or too slow, a path too long or unknown) belongs to no action: the error
 * catalogue lists it, and no operation.
 */
import { BATCH_ACTION } from '../core/dispatch-types.js';
import type { Action, ApiVersion, Face } from '../spec/model.js';

/** What the call itself meets, before and after its action is checked: once per call, never per request of a batch. */
const CALL_CODES = [
  // The HTTP layer reads the body (src/server/http-app.ts, json-body.ts).
  'invalid_json',
  'unsupported_media_type',
  'payload_too_large',
  // parse.ts
  'invalid_envelope',
  'timeout_out_of_range',
  'idempotency_key_invalid',
  // authenticate.ts
  'api_key_missing',
  'api_key_invalid',
  'api_key_revoked',
  'api_key_expired',
  // entity.ts
  'entity_missing',
  'entity_invalid',
  'entity_forbidden',
  // version.ts (api_version_retired only while a version is retired: see callCodes)
  'api_version_invalid',
  'api_version_unknown',
  'api_version_conflict',
  // idempotency.ts, for a call that sends a key
  'idempotency_key_in_use',
  'idempotency_key_reused',
  // A call that arrives while the server stops (http-app.ts).
  'shutting_down',
];

/** What each request meets once routed: a call of its own, or each request of a batch (checks.ts, execute.ts). */
const REQUEST_CODES = [
  // scope.ts
  'insufficient_scope',
  // rate-limit.ts: a limiter that cannot be reached refuses too (see requestCodes for a batch).
  'rate_limit_exceeded',
  'provider_unavailable',
  // validate.ts
  'payload_invalid',
  // execute.ts: the deadline, a fault, a store that cannot be reached.
  'timeout',
  'internal_error',
  'store_unavailable',
];

/** What the batch stages answer of a batch (src/server/batch.ts, atomic-only.ts). */
const BATCH_CODES = ['batch_too_large', 'atomic_not_supported', 'batch_aborted'];

/**
 * The codes a request of `action` may meet in the checks and the executor, besides its handler's: as a call of
 * its own, or as a request of a batch (which never streams, so a stream-only action there answers `stream_required`).
 */
export function requestCodes(face: Face, action: Action, versions: readonly ApiVersion[], batched = false): string[] {
  return [...REQUEST_CODES, ...routeCodes(face, action, versions), ...streamCodes(action, batched ? false : undefined)];
}

/** The pipeline's codes for a call of `action`, as `POST /do/{face}.{action}` answers them. */
export function callCodes(face: Face, action: Action, versions: readonly ApiVersion[]): string[] {
  const retired = versions.some((v) => v.status === 'retired') ? ['api_version_retired'] : [];
  const codes = [...CALL_CODES, ...retired, ...requestCodes(face, action, versions)];
  // A batch takes no rate limit of its own: its requests do, each as a call, and an atomic one's refusal is
  // its `batch_aborted` (429).
  if (action.id === BATCH_ACTION) return [...codes.filter((code) => code !== 'rate_limit_exceeded'), ...BATCH_CODES];
  // A streamed call whose client went away is stored, and replayed under its key, as 499 (execute.ts).
  return action.stream ? [...codes, 'request_aborted'] : codes;
}

/** The codes of a call that names its face and action in the body (`POST /do`): any face or action may be unknown. */
export const ENVELOPE_ROUTE_CODES = ['face_not_found', 'action_not_found'];

/**
 * The refusals of a call that names a version (path, header or `options.version`) in which the action is not
 * served: `action_not_found` when its face serves others then, `face_not_found` when it serves none (route.ts).
 */
function routeCodes(face: Face, action: Action, versions: readonly ApiVersion[]): string[] {
  const servedIn = (a: Action) => new Set(a.variants.flatMap((v) => v.versions));
  const own = servedIn(action);
  const others = face.actions.filter((a) => a !== action).map(servedIn);
  const codes = new Set<string>();
  for (const version of versions) {
    if (version.status === 'retired' || own.has(version.date)) continue;
    codes.add(others.some((served) => served.has(version.date)) ? 'action_not_found' : 'face_not_found');
  }
  return [...codes];
}

/** The refusals of stream.ts: a stream asked of an action that does not stream, or none of one that only streams. */
function streamCodes(action: Action, asked?: boolean): string[] {
  if (!action.stream) return asked === false ? [] : ['stream_not_supported'];
  return action.streamOnly ? ['stream_required'] : [];
}
