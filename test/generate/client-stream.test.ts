/**
 * Streaming calls of the generated client against a local `node:http` server that writes server-sent
 * events by hand: events cut anywhere (inside lines and multi-byte characters), pings and unknown events,
 * a terminal `error` event, a stream that ends or breaks before its terminal event, a JSON refusal before
 * the stream opens (retried when it is passing), and aborts by signal or by leaving the iteration.
 */
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { API_VERSION, createClient, DispatchConnectionError, DispatchError } from '../../generated/client/index.js';
import { failure, inOrder, KEY, META, recordSleeps, startWireServer, type Received, type Respond, type WireServer } from '../helpers/wire.js';

let server: WireServer;
let baseUrl: string;
let received: Received[];
let respond: Respond;

beforeAll(async () => {
  server = await startWireServer((request, res) => {
    received.push(request);
    respond(res);
  });
  baseUrl = server.url;
});

afterAll(() => server.close());

beforeEach(() => {
  received = [];
});

/** One server-sent event as the server writes it. */
const sseEvent = (id: number, name: string, data: unknown) => `id: ${id}\nevent: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
const START = { requestId: 'req_01TEST', apiVersion: API_VERSION };

/**
 * An event-stream answer written as the given pieces of bytes, one every few milliseconds; `end: false`
 * leaves the connection open after the last one. `closed` is set when the connection goes away.
 */
function sse(pieces: (string | Buffer)[], { end = true } = {}) {
  const state = { closed: false };
  const handler = (res: ServerResponse) => {
    res.on('close', () => (state.closed = true));
    res.writeHead(200, { 'content-type': 'text/event-stream', 'request-id': 'req_01TEST' });
    const next = (i: number) => {
      if (res.destroyed) return;
      if (i < pieces.length) {
        res.write(pieces[i]);
        setTimeout(() => next(i + 1), 5).unref();
      } else if (end) res.end();
    };
    next(0);
  };
  return Object.assign(handler, { state });
}

/** `text` as bytes cut every `size` bytes, so lines, events and multi-byte characters fall across pieces. */
function slices(text: string, size: number): Buffer[] {
  const bytes = Buffer.from(text);
  return Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size));
}

describe('generated client streams', () => {
  const RESULT = { text: 'Grüße, río 🌊', model: 'm', tokens: { input: 2, output: 3 } };

  it('parses events cut anywhere, hides pings and unknown events, and resolves to the result', async () => {
    const text =
      sseEvent(1, 'start', START) +
      sseEvent(2, 'delta', { text: 'Grüße, ' }) +
      sseEvent(3, 'ping', {}) +
      sseEvent(4, 'delta', { text: 'río 🌊' }) +
      sseEvent(5, 'sparkle', { new: 'in a later server' }) +
      sseEvent(6, 'progress', { completed: 1, total: 1 }) +
      sseEvent(7, 'result', { data: RESULT, meta: META });
    respond = sse(slices(text, 7));
    const client = createClient({ baseUrl, apiKey: KEY, entityId: 'acme' });

    const stream = client.ai.generate.stream({ model: 'm', prompt: 'hi' });
    const events = [];
    for await (const event of stream) events.push(event);
    expect(events).toEqual([
      { event: 'start', data: START },
      { event: 'delta', data: { text: 'Grüße, ' } },
      { event: 'delta', data: { text: 'río 🌊' } },
      { event: 'progress', data: { completed: 1, total: 1 } },
    ]);
    expect(await stream.finalResult()).toEqual(RESULT);
    // PromiseLike: awaiting the stream itself gives the result.
    expect(await stream).toEqual(RESULT);

    expect(received).toHaveLength(1);
    expect(received[0]!.headers.accept).toBe('text/event-stream');
    expect(received[0]!.body).toEqual({ face: 'ai', action: 'generate', payload: { model: 'm', prompt: 'hi' } });
  });

  it('keeps events that arrive before iteration, and awaits the result without iterating', async () => {
    respond = sse([sseEvent(1, 'start', START) + sseEvent(2, 'delta', { text: 'a' }) + sseEvent(3, 'result', { data: RESULT, meta: META })]);
    const client = createClient({ baseUrl, apiKey: KEY, entityId: 'acme' });
    expect(await client.ai.generate.stream({ model: 'm', prompt: 'hi' })).toEqual(RESULT);

    const stream = client.ai.generate.stream({ model: 'm', prompt: 'hi' });
    await stream.finalResult();
    const names = [];
    for await (const event of stream) names.push(event.event);
    expect(names).toEqual(['start', 'delta']);
    expect(() => stream[Symbol.asyncIterator]()).toThrow(/only once/);
  });

  it('throws the DispatchError of a terminal error event, after the events before it', async () => {
    const error = { type: 'provider_error', code: 'provider_failed', message: 'The model broke down.', docUrl: '/docs/errors#provider_failed' };
    respond = sse([
      sseEvent(1, 'start', START),
      sseEvent(2, 'delta', { text: 'Half' }),
      sseEvent(3, 'error', { error, meta: { ...META, requestId: 'req_STREAM' } }),
    ]);
    const client = createClient({ baseUrl, apiKey: KEY, entityId: 'acme' });
    const stream = client.ai.generate.stream({ model: 'm', prompt: 'hi' });
    const names: string[] = [];
    const thrown = await (async () => {
      for await (const event of stream) names.push(event.event);
    })().catch((e: unknown) => e);

    expect(names).toEqual(['start', 'delta']);
    expect(thrown).toBeInstanceOf(DispatchError);
    expect(thrown).toMatchObject({ code: 'provider_failed', type: 'provider_error', message: error.message, requestId: 'req_STREAM' });
    // The stream had opened with a 200; the error event carries no status of its own.
    expect((thrown as DispatchError).status).toBe(200);
    await expect(stream.finalResult()).rejects.toBe(thrown);
    // Once the stream opened, its outcome is final: no retry.
    expect(received).toHaveLength(1);
  });

  it('throws DispatchConnectionError when the stream ends before its terminal event, and does not retry', async () => {
    respond = sse([sseEvent(1, 'start', START), sseEvent(2, 'delta', { text: 'Half' })]);
    const { sleeps, sleep } = recordSleeps();
    const client = createClient({ baseUrl, apiKey: KEY, entityId: 'acme', sleep });
    const stream = client.ai.generate.stream({ model: 'm', prompt: 'hi' });
    const e = await stream.finalResult().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(DispatchConnectionError);
    expect((e as DispatchConnectionError).timedOut).toBe(false);
    expect((e as DispatchConnectionError).message).toMatch(/ended before its result/);
    expect(received).toHaveLength(1);
    expect(sleeps).toEqual([]);

    // A connection cut mid-event is the same failure.
    received = [];
    respond = (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(sseEvent(1, 'start', START) + 'id: 2\nevent: delta\ndata: {"te');
      setTimeout(() => res.destroy(), 20).unref();
    };
    const cut = await client.ai.generate.stream({ model: 'm', prompt: 'hi' }).finalResult().catch((x: unknown) => x);
    expect(cut).toBeInstanceOf(DispatchConnectionError);
    expect((cut as DispatchConnectionError).message).toMatch(/broke off/);
    expect(received).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('retries a JSON 429 before the stream opens, under the same idempotency key', async () => {
    respond = inOrder(
      failure(429, 'rate_limit_exceeded', { 'retry-after': '1' }),
      sse([sseEvent(1, 'start', START), sseEvent(2, 'result', { data: RESULT, meta: META })]),
    );
    const { sleeps, sleep } = recordSleeps();
    const client = createClient({ baseUrl, apiKey: KEY, entityId: 'acme', sleep, random: () => 0 });
    expect(await client.ai.generate.stream({ model: 'm', prompt: 'hi' }, { idempotencyKey: 'gen-7' })).toEqual(RESULT);
    expect(received.map((r) => r.headers['x-idempotency-key'])).toEqual(['gen-7', 'gen-7']);
    expect(received.map((r) => r.headers.accept)).toEqual(['text/event-stream', 'text/event-stream']);
    expect(sleeps).toEqual([1000]);

    // A refusal that another attempt would not change is thrown as the DispatchError of its JSON body.
    received = [];
    respond = failure(400, 'stream_not_supported');
    const e = await client.ai.generate.stream({ model: 'm', prompt: 'hi' }).finalResult().catch((x: unknown) => x);
    expect(e).toMatchObject({ status: 400, code: 'stream_not_supported', attempts: 1 });
  });

  it('aborts the request when the caller aborts, or leaves the iteration early', async () => {
    let open = sse([sseEvent(1, 'start', START), sseEvent(2, 'delta', { text: 'a' })], { end: false });
    respond = open;
    const client = createClient({ baseUrl, apiKey: KEY, entityId: 'acme' });
    const controller = new AbortController();
    const reason = new Error('user pressed stop');
    const stream = client.ai.generate.stream({ model: 'm', prompt: 'hi' }, { signal: controller.signal });
    const seen: string[] = [];
    const thrown = await (async () => {
      for await (const event of stream) {
        seen.push(event.event);
        if (event.event === 'delta') controller.abort(reason);
      }
    })().catch((e: unknown) => e);
    expect(seen).toEqual(['start', 'delta']);
    expect(thrown).toBe(reason);
    await expect(stream.finalResult()).rejects.toBe(reason);
    await expect.poll(() => open.state.closed).toBe(true);

    open = sse([sseEvent(1, 'start', START), sseEvent(2, 'delta', { text: 'a' })], { end: false });
    respond = open;
    const left = client.ai.generate.stream({ model: 'm', prompt: 'hi' });
    for await (const event of left) if (event.event === 'delta') break;
    await expect.poll(() => open.state.closed).toBe(true);
    const e = await left.finalResult().catch((x: unknown) => x);
    expect((e as DOMException).name).toBe('AbortError');
  });
});
