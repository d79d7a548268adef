/**
 * Authentication: `Authorization: Bearer sk_live_…|sk_test_…`. The key is looked up by the SHA-256 of the
 * secret (the key cache compares the stored hash in constant time); revoked and expired keys are told apart
 * from unknown ones.
 */
import { KEY_PATTERN, type KeyRecord } from '../../store/keys.js';
import { header, type CallState } from '../call.js';
import type { Stage } from '../stage.js';
import { ApiError } from '../../core/errors.js';
import { sha256 } from '../../store/secrets.js';

// The refusals that say nothing of the request are made once: a flood of bad keys allocates no error each.
const MISSING = new ApiError('api_key_missing', 'Send your API key as "Authorization: Bearer <key>".');
const MALFORMED = new ApiError('api_key_invalid', 'The Authorization header must be "Bearer sk_live_…" or "Bearer sk_test_…".');
const UNKNOWN = new ApiError('api_key_invalid', 'The API key is not known.');
const BEARER = /^Bearer +(\S+)\s*$/i;

export const authenticate: Stage = (call, runtime) => {
  const authorization = header(call, 'authorization');
  if (!authorization) throw MISSING;
  const match = BEARER.exec(authorization);
  if (!match || !KEY_PATTERN.test(match[1]!)) throw MALFORMED;
  // A key in the cache is known at once, without waiting a turn of the event loop.
  const found = runtime.keys.get(sha256(match[1]!));
  if (found instanceof Promise) return found.then((key) => identify(call, key));
  identify(call, found);
};

/** The call's caller, once the key is found: refused when it is unknown, revoked or expired. */
function identify(call: CallState, key: KeyRecord | undefined): void {
  if (!key) throw UNKNOWN;
  if (key.revokedAt || key.expiresAt) {
    const now = new Date().toISOString();
    if (key.revokedAt && key.revokedAt <= now) throw new ApiError('api_key_revoked', `The API key ${key.id} was revoked.`);
    if (key.expiresAt && key.expiresAt <= now) throw new ApiError('api_key_expired', `The API key ${key.id} expired at ${key.expiresAt}.`);
  }
  call.key = key;
  call.mode = key.mode;
}
