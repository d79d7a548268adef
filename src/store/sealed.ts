/**
 * Secret fields at rest: webhook signing secrets and stored idempotent replies (which hold API keys and
 * session tokens as they were answered) are sealed with AES-256-GCM under the configured secret key before
 * they reach the store, and opened when read, so a copy of the database or the data directory reveals none
 * of them. A sealed value names the key that sealed it (`sealed:v1:<key id>:<iv|tag|ciphertext>`), so keys can
 * be rotated: the current key seals, previous keys still open what they sealed. Values written before sealing
 * existed are read as they are.
 *
 * `useSecretKeys` is called once at start (`dispatch serve`, `dispatch worker`) with the configured keys. A
 * process that never calls it (tests of one process) seals under a key of its own, made at random.
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { pooledBytes } from './secrets.js';

const PREFIX = 'sealed:v1:';

interface Key {
  id: string;
  bytes: Buffer;
}

let current: Key = toKey(randomBytes(32));
let known = new Map<string, Key>([[current.id, current]]);

function toKey(bytes: Buffer): Key {
  return { id: createHash('sha256').update(bytes).digest('hex').slice(0, 12), bytes };
}

/** Reads a key written as 64 hex digits or as base64 of 32 bytes. */
export function parseSecretKey(text: string, name = 'DISPATCH_SECRET_KEY'): Buffer {
  const trimmed = text.trim();
  const bytes = /^[0-9a-f]{64}$/i.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  if (bytes.length !== 32) throw new Error(`${name} must be 32 bytes, written as 64 hex digits or in base64 (e.g. \`openssl rand -base64 32\`).`);
  return bytes;
}

/** A new key in the form `parseSecretKey` reads (base64). */
export function newSecretKey(): string {
  return randomBytes(32).toString('base64');
}

/** Seals with `currentKey` from now on; `previousKeys` still open what they sealed. */
export function useSecretKeys(currentKey: Buffer, previousKeys: Buffer[] = []): void {
  current = toKey(currentKey);
  known = new Map([current, ...previousKeys.map(toKey)].map((k) => [k.id, k]));
}

export function seal(plaintext: string): string {
  // The cipher and the concatenation below copy it before the pool moves on.
  const iv = pooledBytes(12);
  const cipher = createCipheriv('aes-256-gcm', current.bytes, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `${PREFIX}${current.id}:${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64')}`;
}

/** The plaintext of a sealed value; a value that was never sealed is returned as it is. */
export function unseal(stored: string): string {
  if (!stored.startsWith(PREFIX)) return stored;
  const separator = stored.indexOf(':', PREFIX.length);
  const key = known.get(stored.slice(PREFIX.length, separator));
  if (!key) throw new Error(`A stored secret was sealed under key ${stored.slice(PREFIX.length, separator)}, which is not configured: add it to DISPATCH_PREVIOUS_SECRET_KEYS.`);
  const raw = Buffer.from(stored.slice(separator + 1), 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key.bytes, raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}

/** True when `stored` is sealed under the current key (false for plaintext and for a previous key's seal). */
export function sealedUnderCurrentKey(stored: string): boolean {
  return stored.startsWith(`${PREFIX}${current.id}:`);
}

export const sealNullable = (value: string | null) => (value === null ? null : seal(value));
export const unsealNullable = (value: string | null) => (value === null ? null : unseal(value));

/**
 * HMAC keys for one purpose (such as signed storage URLs), derived from the secret keys with HKDF so that a
 * signature never reveals a sealing key: the current key's signs; every configured key's verifies, so what
 * was signed before a rotation still checks out.
 */
export function signingKeys(purpose: string): { current: Buffer; all: Buffer[] } {
  const derive = (key: Key) => Buffer.from(hkdfSync('sha256', key.bytes, Buffer.alloc(0), purpose, 32));
  return { current: derive(current), all: [...known.values()].map(derive) };
}
