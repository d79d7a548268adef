/** SHA-256 of a text, in hex: key hashes, idempotency fingerprints, the generator's memo keys. */
import * as crypto from 'node:crypto';

// One call on every request: Node's one-shot digest (20.12 on) makes no Hash object; older Nodes make one.
export const sha256: (text: string) => string =
  typeof crypto.hash === 'function' ? (text) => crypto.hash('sha256', text, 'hex') : (text) => crypto.createHash('sha256').update(text).digest('hex');
