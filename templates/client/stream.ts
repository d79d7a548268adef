/**
 * `DispatchStream`: what a streaming call returns. It is an async iterable of the stream's events and a
 * promise-like of the call's result, fed by the transport in `runtime.ts` (which reads the server-sent
 * events) and free of any I/O itself.
 */

/** The events of a stream a caller sees (docs/contract.md § Streaming). `ping` keeps the connection alive and is not shown. */
export type StreamEvent =
  /** The stream opened; sent first. */
  | { event: 'start'; data: { requestId: string; apiVersion: string } }
  /** A piece of generated text: the pieces concatenate to the result's `text`. */
  | { event: 'delta'; data: { text: string } }
  /** How far a long task got. */
  | { event: 'progress'; data: { completed: number; total: number; message?: string } };

/**
 * A streaming call, started as soon as it is made. Iterate it (once) for its events, in order; events that
 * arrive before you iterate are kept for you. Await it, or `finalResult()`, for the result. A failure (a
 * `DispatchError`, a `DispatchConnectionError`, or the reason of an abort) ends the iteration by throwing
 * and rejects the result. Leaving a `for await` loop early (`break`, `return`, a throw) aborts the call.
 * `E` is the union of the events the action sends: `StreamEvent`, and those it declares of its own.
 */
export class DispatchStream<T, E extends { event: string; data: unknown } = StreamEvent> implements AsyncIterable<E>, PromiseLike<T> {
  readonly #queue: E[] = [];
  readonly #result: Promise<T>;
  readonly #cancel: (reason: unknown) => void;
  #wake: (() => void) | undefined;
  #ended = false;
  #iterated = false;

  /**
   * Made by `BaseClient.stream`: `run` performs the call, handing each event to `emit`, and resolves to the
   * result; `cancel` aborts it.
   */
  constructor(run: (emit: (event: E) => void) => Promise<T>, cancel: (reason: unknown) => void) {
    this.#cancel = cancel;
    this.#result = run((event) => {
      this.#queue.push(event);
      this.#notify();
    }).finally(() => {
      this.#ended = true;
      this.#notify();
    });
    // A caller who only iterates learns of a failure there; without this it would also be an unhandled rejection.
    this.#result.catch(() => undefined);
  }

  /** The call's result, once the stream's `result` event arrived. */
  finalResult(): Promise<T> {
    return this.#result;
  }

  then<A = T, B = never>(
    onfulfilled?: ((value: T) => A | PromiseLike<A>) | null,
    onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.#result.then(onfulfilled, onrejected);
  }

  [Symbol.asyncIterator](): AsyncIterator<E> {
    if (this.#iterated) throw new Error('A DispatchStream can be iterated only once.');
    this.#iterated = true;
    return {
      next: async (): Promise<IteratorResult<E>> => {
        for (;;) {
          const event = this.#queue.shift();
          if (event) return { value: event, done: false };
          if (this.#ended) {
            await this.#result;
            return { value: undefined, done: true };
          }
          await new Promise<void>((resolve) => (this.#wake = resolve));
        }
      },
      return: async (): Promise<IteratorResult<E>> => {
        if (!this.#ended) this.#cancel(new DOMException('The stream was left before its end.', 'AbortError'));
        return { value: undefined, done: true };
      },
    };
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
