/**
 * Secrets and ids: prefixed time-sortable ids, random base62 secrets, SHA-256 for high-entropy tokens
 * (API keys, session tokens) and scrypt for passwords. Every comparison of secrets is constant-time.
 */
import { randomBytes, scrypt, createHash, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

// Ids and the IVs of sealed replies are made on every request: draw their randomness from a pool rather than
// one call into the system's generator each.
const POOL_SIZE = 4096;
let pool = randomBytes(POOL_SIZE);
let poolOffset = 0;

/**
 * `n` (at most the pool's size) random bytes no other call is given: a view into the pool, to be used or
 * copied before the next call, which may refill it.
 */
export function pooledBytes(n: number): Buffer {
  const start = takePooled(n);
  return pool.subarray(start, start + n);
}

/** Where in `pool` the `n` random bytes given to this call start (without a view of them: newId reads the pool). */
function takePooled(n: number): number {
  if (poolOffset + n > POOL_SIZE) {
    pool = randomBytes(POOL_SIZE);
    poolOffset = 0;
  }
  poolOffset += n;
  return poolOffset - n;
}

/** The part of every id made at `ms` (since the epoch) that precedes its random part: ids sort by it. */
export function idTimePrefix(prefix: string, ms: number): string {
  return `${prefix}_${timeChars(ms)}`;
}

/** The millisecond an id (or an id's time prefix) was made at, its ten time characters read back; NaN for text that is no id. */
export function idTime(id: string): number {
  const start = id.indexOf('_') + 1;
  if (start === 0 || id.length < start + 10) return NaN;
  let ms = 0;
  for (let i = start; i < start + 10; i++) {
    const digit = CROCKFORD.indexOf(id[i]!);
    if (digit === -1) return NaN;
    ms = ms * 32 + digit;
  }
  return ms;
}

/** Crockford base32 as character codes. */
const CODES = Buffer.from(CROCKFORD, 'latin1');
/** The ten time characters of the millisecond written last, which ids of every prefix copy. */
const idChars = Buffer.alloc(10);
/** The millisecond the time characters in `idChars` stand for: ids made in the same one reuse them. */
let idCharsMs = -1;

/** Ten base-32 characters of millisecond time, into the start of `idChars`. */
function writeTime(ms: number): void {
  // Ten base-32 characters hold every millisecond from 1970 to the year 10889.
  let time = Math.min(Math.max(0, Math.floor(ms)), 32 ** 10 - 1);
  if (time === idCharsMs) return;
  idCharsMs = time;
  for (let i = 9; i >= 0; i--) {
    idChars[i] = CODES[time % 32]!;
    time = Math.floor(time / 32);
  }
}

function timeChars(ms: number): string {
  writeTime(ms);
  return idChars.toString('latin1', 0, 10);
}

/**
 * For each prefix ids are made with, a buffer of a whole id (`prefix_` then 26 characters), and the millisecond
 * its time characters stand for. The program names a few dozen prefixes.
 */
const idBuffers = new Map<string, { chars: Buffer; ms: number }>();

/**
 * `prefix_` + 10 characters of millisecond time + 16 random, Crockford base32 (a ULID): sorts by creation.
 * Made on every request, several times: the characters are written into the prefix's buffer and read out as
 * one string, rather than joined one by one.
 */
export function newId(prefix: string, ms = Date.now()): string {
  let id = idBuffers.get(prefix);
  if (!id) idBuffers.set(prefix, (id = { chars: Buffer.from(`${prefix}_${'0'.repeat(26)}`, 'latin1'), ms: -1 }));
  const { chars } = id;
  const start = chars.length - 26;
  writeTime(ms);
  if (id.ms !== idCharsMs) {
    idChars.copy(chars, start, 0, 10);
    id.ms = idCharsMs;
  }
  const random = takePooled(16);
  // 256 is a multiple of 32, so every character is equally likely.
  for (let i = 0; i < 16; i++) chars[start + 10 + i] = CODES[pool[random + i]! % 32]!;
  return chars.toString('latin1');
}

/**
 * An id of the same form as `newId`, but the same every time for the same `ms` and `seed`: what a retried
 * operation must name as it named it the first time (its tail is a digest of the seed, not random).
 */
export function derivedId(prefix: string, ms: number, seed: string): string {
  const digest = createHash('sha256').update(seed).digest();
  let tail = '';
  for (let i = 0; i < 16; i++) tail += CROCKFORD[digest[i]! % 32];
  return `${idTimePrefix(prefix, ms)}${tail}`;
}

/** Uniformly random base62 text (rejection sampling keeps every character equally likely). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

export { sha256 } from '../hash.js';

export function equalSecrets(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const SCRYPT = { N: 16384, r: 8, p: 1, keyLength: 32 } as const;

function scryptAsync(password: string, salt: Buffer, keyLength: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => scrypt(password, salt, keyLength, options, (err, key) => (err ? reject(err) : resolve(key))));
}

/** `scrypt$N$r$p$salt$hash`, so the cost can be raised later without breaking stored hashes. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, SCRYPT.keyLength, SCRYPT);
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const key = await scryptAsync(password, Buffer.from(salt, 'base64'), expected.length, { N: Number(n), r: Number(r), p: Number(p) });
  return timingSafeEqual(key, expected);
}

/** A valid hash of a random password: checked against when a user does not exist, so timing reveals nothing. */
export const DECOY_PASSWORD_HASH = hashPassword(randomBase62(24));
