/**
 * The server-sent-event answer of a streaming call (API.md §11). Every event has `id: <sequence>`,
 * `event: <name>` and one `data:` line of JSON (JSON text never holds a raw line break): `start`, then the
 * handler's `delta` and `progress` events, `ping` every `pingMs`, and exactly one terminal event, `result`
 * or `error`, carrying the same envelope a JSON answer would. A client that disconnects before the end
 * aborts the call through `signal`.
 */
import type { ServerResponse } from 'node:http';
import type { Reply, StreamChannel } from './call.js';

export class EventStreamResponse {
  readonly #raw: ServerResponse;
  readonly #gone = new AbortController();
  readonly #ping: NodeJS.Timeout;
  #sequence = 0;
  #ended = false;
  /** Where the handler streams to. */
  readonly channel: StreamChannel;

  /** Sends the headers and the `start` event at once, and pings every `pingMs` until the end. */
  constructor(raw: ServerResponse, pingMs: number, headers: Record<string, string>, start: { requestId: string; apiVersion: string }) {
    this.#raw = raw;
    raw.once('close', () => {
      clearInterval(this.#ping);
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
    this.#ping = setInterval(() => this.#send('ping', {}), pingMs);
    this.channel = {
      signal: this.#gone.signal,
      sink: {
        active: true,
        delta: (text) => this.#send('delta', { text }),
        progress: (completed, total, message) => this.#send('progress', { completed, total, ...(message !== undefined ? { message } : {}) }),
      },
    };
  }

  /** Sends the reply as the terminal event and ends the stream. */
  finish(reply: Reply): void {
    this.#send(reply.status === 200 ? 'result' : 'error', reply.body);
    this.#ended = true;
    clearInterval(this.#ping);
    this.#raw.end();
  }

  #send(event: string, data: unknown): void {
    // A handler abandoned at its deadline may still report; nothing follows the terminal event.
    if (this.#ended || this.#raw.destroyed) return;
    this.#sequence += 1;
    this.#raw.write(`id: ${this.#sequence}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }
}
