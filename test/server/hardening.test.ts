/**
 * What hostile and broken clients meet, over real sockets: every answer in the error envelope (what Node's
 * parser refuses included), slow clients cut off at the configured limits, bodies too deep or in another
 * charset refused before parsing, repeated idempotency keys refused, leap seconds read as JSON Schema
 * allows them, /metrics behind its token, and the shutdown refusal in the envelope.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TextModel } from '../../src/providers/text-model.js';
import { generateCall, startServer, type TestServer } from '../helpers/server.js';

const LIMITS = { requestTimeoutMs: 600, headersTimeoutMs: 400, keepAliveTimeoutMs: 5000, maxConnections: 100 };

let server: TestServer;
let port: number;
beforeAll(async () => {
  server = await startServer({ http: LIMITS, metricsToken: 'm3trics' });
  port = Number(new URL(server.url).port);
});
afterAll(() => server.close());

/** Writes raw bytes on a new connection; resolves with everything the server sent until it closed, and when. */
function raw(chunks: (string | Buffer)[], options: { gapMs?: number; endAfter?: number } = {}): Promise<{ text: string; closedAfterMs: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (d) => (text += d.toString()));
    socket.on('error', () => {});
    socket.on('close', () => resolve({ text, closedAfterMs: Date.now() - started }));
    socket.on('connect', async () => {
      for (const chunk of chunks) {
        if (socket.destroyed) break;
        socket.write(chunk);
        if (options.gapMs) await new Promise((r) => setTimeout(r, options.gapMs));
      }
    });
    setTimeout(() => (socket.destroy(), reject(new Error(`no close; got: ${text}`))), options.endAfter ?? 5000);
  });
}

function envelope(text: string): { status: number; requestId: string | undefined; body: any } {
  const [head, body] = [text.slice(0, text.indexOf('\r\n\r\n')), text.slice(text.indexOf('\r\n\r\n') + 4)];
  return { status: Number(head.split(' ')[1]), requestId: /^request-id: (\S+)/im.exec(head)?.[1], body: JSON.parse(body) };
}

const request = (head: string, body = '') => `${head}\r\nHost: x\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

describe('what the HTTP parser refuses leaves in the envelope', () => {
  it.each([
    ['a malformed request line', 'GARBAGE\r\n\r\n', 400, 'request_malformed'],
    ['an unknown method', request('BREW /do HTTP/1.1'), 400, 'request_malformed'],
    ['a NUL byte in a header', 'POST /do HTTP/1.1\r\nHost: x\r\nX-Bad: a\0b\r\n\r\n', 400, 'request_malformed'],
    ['bad chunking', 'POST /do HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n', 400, 'request_malformed'],
    ['oversized headers', `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'headers_too_large'],
    ['a path with bad percent-encoding', request('POST /%zz/do HTTP/1.1'), 400, 'request_malformed'],
    ['an over-long path parameter', request(`POST /${'9'.repeat(500)}/do HTTP/1.1`), 414, 'uri_too_long'],
  ])('%s', async (_, bytes, status, code) => {
    const { text } = await raw([bytes]);
    const answer = envelope(text);
    expect(answer.status).toBe(status);
    expect(answer.body.error).toMatchObject({ code, docUrl: `/docs/errors#${code}` });
    expect(answer.requestId).toMatch(/^req_/);
    expect(answer.body.meta.requestId).toBe(answer.requestId);
  });

  it('never writes a second answer on a connection that has already answered', async () => {
    const first = `GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n`;
    const { text } = await raw([first, 'GARBAGE\r\n\r\n'], { gapMs: 200 });
    expect(text.match(/HTTP\/1\.1 /g)).toHaveLength(1);
    expect(text).toMatch(/^HTTP\/1\.1 200/);
  });

  it('closes connections beyond the cap as they are accepted', async () => {
    const capped = await startServer({ http: { ...LIMITS, maxConnections: 2 } });
    const port = Number(new URL(capped.url).port);
    const open = await Promise.all([0, 1].map(() => new Promise<ReturnType<typeof connect>>((r) => { const s = connect(port, '127.0.0.1', () => r(s)); })));
    const third = connect(port, '127.0.0.1');
    const closed = await new Promise<boolean>((resolve) => {
      third.on('close', () => resolve(true));
      third.on('error', () => {});
      setTimeout(() => resolve(false), 2000);
    });
    expect(closed).toBe(true);
    for (const s of open) s.destroy();
    await capped.close();
  });

  it('cuts off a client that sends its body too slowly, with 408 request_timeout, at the configured limit', async () => {
    const head = 'POST /do HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n';
    const { text, closedAfterMs } = await raw([head, ...Array.from({ length: 20 }, () => ' ')], { gapMs: 200, endAfter: 4000 });
    expect(closedAfterMs).toBeLessThan(LIMITS.requestTimeoutMs + 1500);
    expect(envelope(text).body.error.code).toBe('request_timeout');
  });

  it('answers a body shorter than its Content-Length once the request time is up, not never', async () => {
    const { text, closedAfterMs } = await raw(['POST /do HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{"face":'], { endAfter: 4000 });
    expect(closedAfterMs).toBeLessThan(LIMITS.requestTimeoutMs + 1500);
    expect(envelope(text).status).toBe(408);
  });

  it('logs a client that goes away mid-body as such, not as an internal error', async () => {
    const errors = vi.spyOn(console, 'error');
    await new Promise<void>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write('POST /do HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"face"');
        setTimeout(() => (socket.destroy(), setTimeout(resolve, 200)), 50);
      });
    });
    expect(errors.mock.calls.flat().join(' ')).not.toContain('internal error');
    errors.mockRestore();
  });
});

describe('bodies and headers refused before they are used', () => {
  it('refuses nesting deeper than the limit with 400 payload_invalid, even in a batch with an idempotency key', async () => {
    const deep = '['.repeat(5000) + ']'.repeat(5000);
    const body = `{"face":"batch","action":"run","payload":{"mode":"bestEffort","requests":[{"face":"ai","action":"generate","payload":{"model":"m","prompt":"p","input":${deep}}}]}}`;
    const reply = await server.post(undefined, { raw: body, headers: { 'x-idempotency-key': 'deep-1' } });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toMatchObject({ code: 'payload_invalid', details: { errors: [{ keyword: 'maxDepth' }] } });
  });

  it('refuses a body in a charset other than UTF-8 with 415', async () => {
    const reply = await server.post(generateCall(), { headers: { 'content-type': 'application/json; charset=utf-16' } });
    expect(reply.status).toBe(415);
    expect(reply.body.error.code).toBe('unsupported_media_type');
    expect((await server.post(generateCall(), { headers: { 'content-type': 'application/json; charset=UTF-8' } })).status).toBe(200);
  });

  it('refuses a repeated X-Idempotency-Key rather than joining the two into one key', async () => {
    const body = JSON.stringify(generateCall());
    const head = `POST /do HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.adminKey}\r\nX-Entity-ID: acme\r\nContent-Type: application/json\r\nX-Idempotency-Key: a\r\nX-Idempotency-Key: b\r\nConnection: close\r\nContent-Length: ${body.length}\r\n\r\n`;
    const answer = envelope((await raw([head + body])).text);
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('idempotency_key_invalid');
    // One key holding a comma is a key like any other.
    expect((await server.post(generateCall(), { headers: { 'x-idempotency-key': 'a, b' } })).status).toBe(200);
  });

  it('reads a leap second as JSON Schema allows it, instead of failing with 500', async () => {
    const reply = await server.post({ face: 'keys', action: 'create', payload: { scopes: ['ai:generate'], entities: ['acme'], expiresAt: '2030-12-31T23:59:60Z' } });
    expect(reply.status).toBe(200);
    expect(reply.body.data.expiresAt).toBe('2031-01-01T00:00:00.000Z');
  });
});

describe('operator endpoints and shutdown', () => {
  it('serves /metrics only with its bearer token when one is set', async () => {
    const without = await fetch(`${server.url}/metrics`);
    expect(without.status).toBe(401);
    expect(((await without.json()) as any).error.code).toBe('api_key_invalid');
    const withToken = await fetch(`${server.url}/metrics`, { headers: { authorization: 'Bearer m3trics' } });
    expect(withToken.status).toBe(200);
    expect(await withToken.text()).toContain('dispatch_calls_total');
  });

  it('refuses calls that arrive while it stops with 503 shutting_down, Retry-After and a Request-Id, and finishes the call in flight', async () => {
    let release!: () => void;
    const slow: TextModel = {
      generate: (r) => new Promise((resolve) => (release = () => resolve({ text: 'done', model: r.model, tokens: { input: 1, output: 1 } }))),
    };
    const stopping = await startServer({ providers: { live: slow } });
    const live = (await stopping.key({ mode: 'live' })).secret;
    const body = JSON.stringify(generateCall());
    const call = (key: string) =>
      `POST /do HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nX-Entity-ID: acme\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    // A keep-alive connection with a call in flight; a second call arrives on it once the stop has begun.
    const socket = connect(Number(new URL(stopping.url).port), '127.0.0.1');
    let text = '';
    socket.on('data', (d) => (text += d.toString()));
    await new Promise((r) => socket.on('connect', r));
    socket.write(call(live));
    await vi.waitFor(() => expect(release).toBeDefined());
    const closed = stopping.close();
    await new Promise((r) => setTimeout(r, 50));
    socket.write(call(stopping.adminKey));
    await new Promise((r) => setTimeout(r, 50));
    release();
    await closed;
    const answers = text.split(/(?=HTTP\/1\.1 )/).map(envelope);
    expect(answers[0]!.status).toBe(200);
    expect(answers[0]!.body.data.text).toBe('done');
    expect(answers[1]!.status).toBe(503);
    expect(answers[1]!.body.error).toMatchObject({ code: 'shutting_down', type: 'api_error' });
    expect(answers[1]!.requestId).toMatch(/^req_/);
    expect(text.split(/(?=HTTP\/1\.1 )/)[1]).toMatch(/^retry-after: 1\r$/im);
    socket.destroy();
  });
});
