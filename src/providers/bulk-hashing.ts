/**
 * Password hashing for bulk work (`auth.import`). scrypt runs on libuv's thread pool (4 threads), which every
 * login and signup shares: left alone, a few imports fill it and every login waits behind thousands of
 * hashes. Bulk hashing here takes at most `lanes` threads at once (one import of 1000 users still takes
 * about as long as when it ran alone), however many imports run, so interactive
 * calls always find threads free; and at most `maxQueued` passwords wait, beyond which an import is refused
 * at once (503 `import_busy`, retry later) rather than queued for minutes.
 */
import { ApiError } from '../core/errors.js';
import { hashPassword } from '../store/secrets.js';

export interface BulkHashingOptions {
  /** Hashes running at once for all imports together (default 2: half of libuv's pool of 4). */
  lanes?: number;
  /** Passwords waiting to be hashed, at most (default 4000: four full imports). */
  maxQueued?: number;
  hash?: (password: string) => Promise<string>;
}

export class BulkHasher {
  readonly #lanes: number;
  readonly #maxQueued: number;
  readonly #hash: (password: string) => Promise<string>;
  #running = 0;
  #queued = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(options: BulkHashingOptions = {}) {
    this.#lanes = options.lanes ?? 2;
    this.#maxQueued = options.maxQueued ?? 4000;
    this.#hash = options.hash ?? hashPassword;
  }

  /** Hashes every password, in order; `done` is told how many are finished. Stops when `signal` aborts. */
  async hashAll(passwords: readonly string[], signal: AbortSignal, done: (count: number) => unknown): Promise<string[]> {
    if (this.#queued + passwords.length > this.#maxQueued) {
      throw new ApiError('import_busy', `${this.#queued} passwords of other imports are waiting to be hashed; retry shortly.`, { headers: { 'Retry-After': '5' } });
    }
    this.#queued += passwords.length;
    const hashes: string[] = [];
    // Counted as each password leaves the queue, so that a failure or an abort gives back exactly the rest.
    let left = 0;
    try {
      for (const [i, password] of passwords.entries()) {
        await this.#turn();
        try {
          signal.throwIfAborted();
          hashes[i] = await this.#hash(password);
        } finally {
          left++;
          this.#queued--;
          this.#release();
        }
        await done(i + 1);
      }
    } finally {
      this.#queued -= passwords.length - left;
    }
    return hashes;
  }

  /** Waits for a free lane; lanes are handed out in the order they were asked for. */
  #turn(): Promise<void> {
    if (this.#running < this.#lanes) {
      this.#running++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  #release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#running--;
  }
}
