/**
 * Signed URLs served by this server (the files backend): `PUT /storage/signed?upload=…` receives one
 * upload, `GET /storage/signed?mode=…&entity=…&key=…&sha256=…` serves one object's content. The signature is an HMAC-SHA256,
 * under a key derived from the server's secret key (src/store/sealed.ts), of the method, the path and
 * every query parameter, so a URL works for one method and one object, and changing any part of it (its
 * expiry included) makes it invalid. Expiry is a Unix time in seconds, as S3's presigned URLs count.
 */
import { createHmac } from 'node:crypto';
import { ApiError } from '../../core/errors.js';
import { signingKeys } from '../../store/sealed.js';
import { equalSecrets } from '../../store/secrets.js';

export const SIGNED_PATH = '/storage/signed';
const PURPOSE = 'storage-signed-url';

/** The text the signature covers: method, path and the parameters sorted by name. */
function canonical(method: string, params: Record<string, string>): string {
  const query = Object.keys(params)
    .sort()
    .map((name) => `${encodeURIComponent(name)}=${encodeURIComponent(params[name]!)}`)
    .join('&');
  return `${method}\n${SIGNED_PATH}\n${query}`;
}

const hmac = (key: Buffer, text: string) => createHmac('sha256', key).update(text).digest('base64url');

/** A URL under `base` for `method`, carrying `params` and valid until `expiresAt`. */
export function signUrl(base: string, method: 'GET' | 'PUT', params: Record<string, string>, expiresAt: Date): string {
  const signed = { ...params, expires: String(Math.floor(expiresAt.getTime() / 1000)) };
  const signature = hmac(signingKeys(PURPOSE).current, canonical(method, signed));
  return `${base}${SIGNED_PATH}?${new URLSearchParams({ ...signed, signature }).toString()}`;
}

/**
 * The parameters of a signed URL used with `method`, once its signature and expiry are checked.
 * @throws ApiError signed_url_invalid (403) when it is altered, signed for another method, or expired.
 */
export function verifyUrl(method: string, query: Record<string, string | string[] | undefined>, now = Date.now()): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(query)) {
    // A parameter given twice is not what was signed.
    if (typeof value !== 'string') throw new ApiError('signed_url_invalid', 'The signed URL was altered.');
    params[name] = value;
  }
  const { signature, ...signed } = params;
  if (signature === undefined || signed.expires === undefined) throw new ApiError('signed_url_invalid', 'The URL is not signed.');
  const text = canonical(method, signed);
  if (!signingKeys(PURPOSE).all.some((key) => equalSecrets(hmac(key, text), signature))) {
    throw new ApiError('signed_url_invalid', `The signed URL was altered, or is not signed for ${method}.`);
  }
  if (Number(signed.expires) * 1000 < now) throw new ApiError('signed_url_invalid', `The signed URL expired at ${new Date(Number(signed.expires) * 1000).toISOString()}.`);
  return signed;
}
