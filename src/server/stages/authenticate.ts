/**
 * Authentication: `Authorization: Bearer sk_live_…|sk_test_…`. The key is looked up by the SHA-256 of the
 * secret and compared in constant time; revoked and expired keys are told apart from unknown ones.
 */
import { KEY_PATTERN } from '../../store/keys.js';
import { header } from '../call.js';
import type { Stage } from '../stage.js';
import { ApiError } from '../../core/errors.js';
import { equalSecrets, sha256 } from '../../store/secrets.js';

export const authenticate: Stage = async (call, runtime) => {
  const authorization = header(call, 'authorization');
  if (!authorization) throw new ApiError('api_key_missing', 'Send your API key as "Authorization: Bearer <key>".');
  const match = /^Bearer +(\S+)\s*$/i.exec(authorization);
  if (!match || !KEY_PATTERN.test(match[1]!)) {
    throw new ApiError('api_key_invalid', 'The Authorization header must be "Bearer sk_live_…" or "Bearer sk_test_…".');
  }
  const hash = sha256(match[1]!);
  const key = await runtime.keys.get(hash);
  if (!key || !equalSecrets(key.hash, hash)) throw new ApiError('api_key_invalid', 'The API key is not known.');
  const now = new Date().toISOString();
  if (key.revokedAt && key.revokedAt <= now) throw new ApiError('api_key_revoked', `The API key ${key.id} was revoked.`);
  if (key.expiresAt && key.expiresAt <= now) throw new ApiError('api_key_expired', `The API key ${key.id} expired at ${key.expiresAt}.`);
  const { hash: _hash, ...record } = key;
  call.key = record;
  call.mode = key.mode;
};
