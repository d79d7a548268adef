/** SHA-256 of a text, in hex: key hashes, idempotency fingerprints, the generator's memo keys. */
import { createHash } from 'node:crypto';

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
