/**
 * The time limit of one call (`options.timeout`, else the platform default), which covers all of its
 * execution: one handler, every request of a batch, or a whole stream. When it passes, whatever still runs
 * is abandoned with 504 `timeout`, whether or not it listens, and the signal handed to handlers aborts so
 * that their I/O stops. A streaming client that goes away stops the call the same way.
 *
 * Most handlers never read their signal, so the AbortController is made only when one does; the work in
 * progress is rejected by the deadline itself rather than through a listener on its own signal.
 */
import type { RoutedCall } from './call.js';
import { ApiError } from '../core/errors.js';
import type { Runtime } from './runtime.js';

/** The reason a call stops when its streaming client disconnects. */
export class ClientGoneError extends Error {
  constructor() {
    super('The client closed the connection.');
    this.name = 'ClientGoneError';
  }
}

export class Deadline {
  readonly #timer: NodeJS.Timeout;
  readonly #clientSignal: AbortSignal | undefined;
  /** Made only for a call whose client may go away (a stream). */
  readonly #gone: (() => void) | undefined;
  #controller: AbortController | undefined;
  #stopped = false;
  #reason: unknown;
  /** Rejects the work in progress. */
  #reject: ((reason: unknown) => void) | undefined;

  /** When the time-out passes (ms since the epoch). */
  readonly endsAt: number;

  constructor(timeoutMs: number, label: string, clientSignal?: AbortSignal) {
    this.endsAt = Date.now() + timeoutMs;
    this.#timer = setTimeout(() => this.#stop(new ApiError('timeout', `${label} did not finish within ${timeoutMs} ms.`, { details: { timeoutMs } })), timeoutMs);
    this.#clientSignal = clientSignal;
    if (!clientSignal) return;
    this.#gone = () => this.#stop(new ClientGoneError());
    if (clientSignal.aborted) this.#gone();
    else clientSignal.addEventListener('abort', this.#gone, { once: true });
  }

  /** Aborts when the time-out passes or the client goes away; its reason says which. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#stopped) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** True once the time-out passed or the client went away. */
  get stopped(): boolean {
    return this.#stopped;
  }

  /** Throws the deadline's reason once it has passed (before starting more work). */
  throwIfStopped(): void {
    if (this.#stopped) throw this.#reason;
  }

  /** The outcome of `work`, or the deadline's reason when that comes first. */
  run<T>(work: Promise<T>): Promise<T> {
    if (this.#stopped) {
      work.catch(() => {});
      return Promise.reject(this.#reason);
    }
    return new Promise<T>((resolve, reject) => {
      this.#reject = reject;
      // A handler that passes the abort on rejects with our reason or an error of its own making; either
      // way the deadline's reason is the answer.
      work.then(resolve, (error: unknown) => reject(this.#stopped && !(error instanceof ApiError) ? this.#reason : error));
    });
  }

  /** Stops the timer; call it once the call's execution is over. */
  dispose(): void {
    clearTimeout(this.#timer);
    if (this.#gone) this.#clientSignal?.removeEventListener('abort', this.#gone);
  }

  #stop(reason: unknown): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
    this.#reject?.(reason);
  }
}

/** The call's time limit in ms: `options.timeout`, else the platform default. */
export function callTimeout(call: RoutedCall, runtime: Runtime): number {
  return call.envelope.options.timeout ?? runtime.catalogue.platform.limits.timeout.default;
}
