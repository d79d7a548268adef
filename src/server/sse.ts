/**
 * The server-sent-event answer of a streaming call (docs/contract.md § Streaming). Every event has `id: <sequence>`,
 * `event: <name>` and one `data:` line of JSON (JSON text never holds a raw line break): `start`, then the
 * handler's `delta` and `progress` events, `ping` every `pingMs`, and exactly one terminal event, `result`
 * or `error`, carrying the same envelope a JSON answer would. A client that disconnects before the end
 * aborts the call through `signal`.
 *
 * A client that reads slower than the handler produces is pushed back on: once the connection's buffer is
 * full, `delta` and `progress` return a promise that settles when it drains, and a handler that awaits it
 * (the model providers do) slows down to the client's pace. A client that stays behind for `stallMs`, or
 * lets more than `maxBufferedBytes` pile up, is cut off as a client that went away.
 */
import type { ServerResponse } from 'node:http';
import type { Reply, StreamChannel } from './call.js';

export interface StreamLimits {
  /** How often `ping` is sent. */
  pingMs: number;
  /** How long a client may keep the buffer full before the stream is ended. */
  stallMs: number;
  /** The most bytes waiting for a client before the stream is ended. */
  maxBufferedBytes: number;
}

export const DEFAULT_STREAM_LIMITS: StreamLimits = { pingMs: 15_000, stallMs: 30_000, maxBufferedBytes: 1 << 20 };

export class EventStreamResponse {
  readonly #raw: ServerResponse;
  readonly #limits: StreamLimits;
  readonly #gone = new AbortController();
  readonly #ping: NodeJS.Timeout;
  #sequence = 0;
  #ended = false;
  /** Settles when a full buffer drains; undefined while the client keeps up. */
  #drained: Promise<void> | undefined;
  #stall: NodeJS.Timeout | undefined;
  /** Where the handler streams to. */
  readonly channel: StreamChannel;

  /** Sends the headers and the `start` event at once, and pings every `pingMs` until the end. */
  constructor(raw: ServerResponse, limits: StreamLimits, headers: Record<string, string>, start: { requestId: string; apiVersion: string }) {
    this.#raw = raw;
    this.#limits = limits;
    raw.once('close', () => {
      clearInterval(this.#ping);
      clearTimeout(this.#stall);
      if (!this.#ended) this.#gone.abort();
    });
    // A client that left before the stream opened is gone already.
    if (raw.socket?.destroyed ?? true) this.#gone.abort();
    raw.writeHead(200, {
      ...headers,
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache',
      Connection: 'keep-alive',
      // Proxies such as nginx would otherwise hold events back to fill their buffers.
      'X-Accel-Buffering': 'no',
    });
    this.#send('start', start);
    // A ping only says the stream is alive: one behind a full buffer says nothing new.
    this.#ping = setInterval(() => this.#drained ?? this.#send('ping', {}), limits.pingMs);
    this.channel = {
      signal: this.#gone.signal,
      sink: {
        active: true,
        delta: (text) => this.#send('delta', { text }),
        progress: (completed, total, message) => this.#send('progress', { completed, total, ...(message !== undefined ? { message } : {}) }),
        event: (name, data) => this.#send(name, data),
      },
    };
  }

  /** Sends the reply as the terminal event and ends the stream. */
  finish(reply: Reply): void {
    this.#send(reply.status === 200 ? 'result' : 'error', reply.body);
    this.#ended = true;
    clearInterval(this.#ping);
    clearTimeout(this.#stall);
    this.#raw.end();
  }

  /** Writes one event; returns a promise that settles once the client has caught up, when it is behind. */
  #send(event: string, data: unknown): Promise<void> | undefined {
    // A handler abandoned at its deadline may still report; nothing follows the terminal event.
    if (this.#ended || this.#raw.destroyed) return undefined;
    this.#sequence += 1;
    const written = this.#raw.write(`id: ${this.#sequence}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    if (this.#raw.writableLength > this.#limits.maxBufferedBytes) {
      this.#cutOff();
      return undefined;
    }
    if (written || this.#drained) return this.#drained;
    this.#drained = new Promise((resolve) => {
      this.#stall = setTimeout(() => this.#cutOff(), this.#limits.stallMs);
      // Drained, or cut off or gone (then the handler is aborted through `signal`): either way nothing
      // waits any more, and neither listener may outlive the wait.
      const settle = () => {
        clearTimeout(this.#stall);
        this.#raw.off('drain', settle).off('close', settle);
        this.#drained = undefined;
        resolve();
      };
      this.#raw.on('drain', settle).on('close', settle);
    });
    return this.#drained;
  }

  /** Ends the stream of a client that does not keep up; the handler sees it as a client that went away. */
  #cutOff(): void {
    if (!this.#ended) this.#raw.destroy();
  }
}
