/**
 * Counts and hashes bytes as they stream past (SHA-256 for the content address, MD5 for the S3-style ETag),
 * and stops the stream with `TooLargeError` as soon as more than the allowed bytes arrive, so that an
 * upload over its limit is refused without being read to its end.
 */
import { createHash, type Hash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';

export class TooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`More than ${limit} bytes were sent.`);
  }
}

/** What was computed over some content. */
export interface ContentDigest {
  sha256: string;
  md5: string;
  size: number;
}

export class DigestStream extends Transform {
  readonly #sha256: Hash = createHash('sha256');
  readonly #md5: Hash = createHash('md5');
  readonly #limit: number;
  #size = 0;
  #digest: ContentDigest | undefined;

  constructor(limit: number) {
    super();
    this.#limit = limit;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.#size += chunk.length;
    if (this.#size > this.#limit) return done(new TooLargeError(this.#limit));
    this.#sha256.update(chunk);
    this.#md5.update(chunk);
    done(null, chunk);
  }

  override _flush(done: TransformCallback): void {
    this.#digest = { sha256: this.#sha256.digest('hex'), md5: this.#md5.digest('hex'), size: this.#size };
    done();
  }

  /** The digest of everything that passed; only once the stream has ended. */
  get digest(): ContentDigest {
    if (!this.#digest) throw new Error('The digest is known once the stream has ended.');
    return this.#digest;
  }
}

/** The digest of bytes held in memory. */
export function digestOf(bytes: Buffer): ContentDigest {
  return {
    sha256: createHash('sha256').update(bytes).digest('hex'),
    md5: createHash('md5').update(bytes).digest('hex'),
    size: bytes.length,
  };
}
