/**
 * The platform's own error codes (docs/contract.md § Errors). The runtime raises them, the generator puts them in the
 * error catalogue, and face files may not reuse their codes. Codes never change once shipped.
 */
import type { FaceError } from './model.js';

const e = (status: number, type: string, code: string, retryable: boolean, message: string): FaceError => ({
  code,
  status,
  type,
  message,
  retryable,
});

export const STANDARD_ERRORS: readonly FaceError[] = [
  e(400, 'invalid_request_error', 'request_malformed', false, 'The HTTP request itself is malformed (request line, method, headers or chunked body) and was not read.'),
  e(400, 'invalid_request_error', 'invalid_json', false, 'The body is not valid JSON, or it holds a forbidden `__proto__` or `constructor.prototype` key.'),
  e(400, 'invalid_request_error', 'invalid_envelope', false, 'The body is not `{face, action, payload, options?}`, or it has unknown fields.'),
  e(400, 'invalid_request_error', 'payload_invalid', false, 'The payload does not match the action\'s schema; `details.errors` lists every violation.'),
  e(400, 'invalid_request_error', 'timeout_out_of_range', false, '`options.timeout` is not a whole number of milliseconds between 1 and the maximum.'),
  e(400, 'invalid_request_error', 'entity_invalid', false, '`X-Entity-ID` is not 1 to 64 characters of `A-Z a-z 0-9 . _ : -`.'),
  e(400, 'invalid_request_error', 'api_version_invalid', false, 'The API version is not a `YYYY-MM-DD` date.'),
  e(400, 'invalid_request_error', 'api_version_unknown', false, 'No API version was released on that date; `details.supported` lists those served.'),
  e(400, 'invalid_request_error', 'api_version_conflict', false, 'The path, `X-API-Version` and `options.version` name different versions.'),
  e(400, 'invalid_request_error', 'idempotency_key_invalid', false, 'The idempotency key is not 1–255 printable ASCII characters, or the header and `options.idempotencyKey` differ.'),
  e(400, 'invalid_request_error', 'stream_not_supported', false, 'A stream was asked for, but the action does not stream.'),
  e(400, 'invalid_request_error', 'stream_required', false, 'The action answers only as a stream: send `options.stream: true` or `Accept: text/event-stream`.'),
  e(400, 'invalid_request_error', 'batch_too_large', false, 'The batch holds more requests than the limit.'),
  e(400, 'invalid_request_error', 'atomic_not_supported', false, 'An atomic batch holds an action with effects outside the store.'),
  e(400, 'batch_error', 'batch_aborted', false, 'A request of an atomic batch failed, so none took effect. The status is the failing request\'s (400 shown here); `details.results` marks each request `succeeded` (rolled back), `failed` (with its `error`) or `notExecuted`.'),
  e(401, 'authentication_error', 'api_key_missing', false, 'No `Authorization: Bearer <key>` header was sent.'),
  e(401, 'authentication_error', 'api_key_invalid', false, 'The API key is malformed or unknown.'),
  e(401, 'authentication_error', 'api_key_revoked', false, 'The API key was revoked.'),
  e(401, 'authentication_error', 'api_key_expired', false, 'The API key has expired.'),
  e(403, 'permission_error', 'insufficient_scope', false, 'The key lacks the scope the action requires; `details.requiredScope` names it.'),
  e(403, 'permission_error', 'entity_forbidden', false, 'The key may not act for this entity.'),
  e(403, 'permission_error', 'entity_missing', false, 'No `X-Entity-ID` header was sent.'),
  e(404, 'not_found_error', 'face_not_found', false, 'No face has that name; `details.available` lists the faces.'),
  e(404, 'not_found_error', 'action_not_found', false, 'The face has no such action in the resolved version; `details.available` lists its actions.'),
  e(404, 'not_found_error', 'resource_not_found', false, 'The record named in the payload does not exist for this entity and mode.'),
  e(404, 'not_found_error', 'route_not_found', false, 'No endpoint has that method and path.'),
  e(408, 'invalid_request_error', 'request_timeout', true, 'The request was not received in time: its headers or body arrived too slowly.'),
  e(409, 'idempotency_error', 'idempotency_key_in_use', true, 'A request with the same idempotency key is still executing.'),
  e(410, 'invalid_request_error', 'api_version_retired', false, 'The API version is retired; `details.supported` lists those served.'),
  e(413, 'invalid_request_error', 'payload_too_large', false, 'The body is larger than the limit.'),
  e(414, 'invalid_request_error', 'uri_too_long', false, 'A part of the path is longer than the server accepts.'),
  e(415, 'invalid_request_error', 'unsupported_media_type', false, 'The body is not sent as `application/json`.'),
  e(422, 'idempotency_error', 'idempotency_key_reused', false, 'The idempotency key was used with a different request.'),
  e(429, 'rate_limit_error', 'rate_limit_exceeded', true, 'A rate policy is exhausted; wait `Retry-After` seconds. `details.violatedPolicies` names them.'),
  e(431, 'invalid_request_error', 'headers_too_large', false, 'The request headers are larger than the server accepts.'),
  e(499, 'api_error', 'request_aborted', false, 'The client closed the connection before the stream ended: the action was stopped and its store effects rolled back. Only ever seen as a replay under the same idempotency key; retry with a new one.'),
  e(500, 'api_error', 'internal_error', true, 'The server failed unexpectedly. The request id helps support find it.'),
  e(501, 'api_error', 'not_implemented', false, 'The action is declared but its handler is not written yet (a skeleton made by `dispatch new` answers this); retrying does not help until a release implements it.'),
  e(502, 'provider_error', 'provider_failed', true, 'The backend of the face answered with an error.'),
  e(503, 'provider_error', 'provider_unavailable', true, 'The backend of the face is down or not configured.'),
  e(503, 'api_error', 'store_unavailable', true, 'The database cannot be reached (a restart, a failover); nothing was answered for the call, so retry after `Retry-After` seconds with the same idempotency key.'),
  e(503, 'api_error', 'shutting_down', true, 'The server is stopping and takes no new calls; retry after `Retry-After` seconds (another process, or this one restarted, will answer).'),
  e(504, 'timeout_error', 'timeout', true, 'The action did not finish within `options.timeout`.'),
];
