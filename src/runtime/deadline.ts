/**
 * The time limit of one call (`options.timeout`, else the platform default), which covers all of its
 * execution: one handler, every request of a batch, or a whole stream. When it passes, the signal handed
 * to handlers aborts (so their I/O stops) and whatever still runs is abandoned with 504 `timeout`, whether
 * or not it listens. A streaming client that goes away aborts the same signal.
 */
import { platform } from '../../generated/server/platform.js';
import type { CallState } from './call.js';
import { ApiError } from './errors.js';

/** The reason a call stops when its streaming client disconnects. */
export class ClientGoneError extends Error {
  constructor() {
    super('The client closed the connection.');
    this.name = 'ClientGoneError';
  }
}

export class Deadline {
  readonly #controller = new AbortController();
  readonly #stopped: Promise<never>;
  readonly #timer: NodeJS.Timeout;
  readonly #dispose: () => void;

  constructor(call: CallState, clientSignal?: AbortSignal) {
    const timeoutMs = call.envelope.options.timeout ?? platform.limits.timeout.default;
    const stop = (reason: unknown) => this.#controller.abort(reason);
    this.#timer = setTimeout(() => stop(new ApiError('timeout', `${call.action!.id} did not finish within ${timeoutMs} ms.`, { details: { timeoutMs } })), timeoutMs);
    const gone = () => stop(new ClientGoneError());
    if (clientSignal?.aborted) gone();
    clientSignal?.addEventListener('abort', gone, { once: true });
    this.#dispose = () => {
      clearTimeout(this.#timer);
      clientSignal?.removeEventListener('abort', gone);
    };
    this.#stopped = new Promise<never>((_, reject) => {
      const signal = this.#controller.signal;
      if (signal.aborted) reject(signal.reason);
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
    // Nobody may be racing against it when it fires.
    this.#stopped.catch(() => {});
  }

  /** Aborts when the time-out passes or the client goes away; its reason says which. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** The outcome of `work`, or the deadline's reason when that comes first. */
  async run<T>(work: Promise<T>): Promise<T> {
    try {
      return await Promise.race([work, this.#stopped]);
    } catch (error) {
      // A handler that passes the abort on rethrows our own reason, or an error of its own making.
      if (this.signal.aborted && !(error instanceof ApiError)) throw this.signal.reason;
      throw error;
    }
  }

  /** Stops the timer; call it once the call's execution is over. */
  dispose(): void {
    this.#dispose();
  }
}
