/**
 * The call lane (src/server/call-lane.ts): which requests it takes from Fastify, and that what it answers is
 * what Fastify's routes answer, byte for byte. The same requests go once over a real socket (the lane) and
 * once by `app.inject`, which reaches Fastify's routes without the lane; status, headers and bodies must
 * match once the request ids and timings, which differ per request, are set aside.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform } from '../../generated/server/platform.js';
import { connect, type Socket } from 'node:net';
import { ApiError } from '../../src/core/errors.js';
import { callLane } from '../../src/server/call-lane.js';
import type { Runtime } from '../../src/server/runtime.js';
import { DEFAULT_STREAM_LIMITS } from '../../src/server/sse.js';
import { versionInForce } from '../../src/spec/version-in-force.js';
import { generateCall, startServer, type TestServer } from '../helpers/server.js';

describe('the requests the lane takes', () => {
  /** A lane over a body limit of 1,000 bytes, on a server that is stopping or not. */
  const laneOf = (stopping: boolean) =>
    callLane({ catalogue: { platform: { limits: { bodyBytes: 1000 } } } } as Runtime, {
      streamLimits: DEFAULT_STREAM_LIMITS,
      closing: () => stopping,
      shuttingDown: () => new ApiError('shutting_down'),
      varyOrigin: true,
    });
  const JSON_HEADERS = { 'content-type': 'application/json', 'content-length': '20' };
  const takes = (method: string, url: string, headers: Record<string, string> = JSON_HEADERS, lane = laneOf(false)) => {
    const request = { method, url, headers, rawHeaders: [], on: () => request } as unknown as IncomingMessage;
    const response = { setHeader: () => response } as unknown as ServerResponse;
    return lane(request, response);
  };

  it('takes the call paths with a plain JSON body', () => {
    expect(takes('POST', '/do')).toBe(true);
    expect(takes('POST', '/do/ai.generate')).toBe(true);
    expect(takes('POST', '/2026-09-01/do')).toBe(true);
    expect(takes('POST', '/do', { ...JSON_HEADERS, 'content-type': 'application/json; charset=UTF-8' })).toBe(true);
  });

  it('leaves every other request to Fastify', () => {
    expect(takes('GET', '/do')).toBe(false);
    expect(takes('POST', '/do?x=1')).toBe(false);
    expect(takes('POST', '/do/')).toBe(false);
    expect(takes('POST', '/do/generate')).toBe(false);
    expect(takes('POST', '/do/ai%2Egenerate')).toBe(false);
    expect(takes('POST', '//do')).toBe(false);
    // Parts longer than Fastify routes are its 414 to answer.
    expect(takes('POST', `/${'v'.repeat(100)}/do`)).toBe(true);
    expect(takes('POST', `/${'v'.repeat(101)}/do`)).toBe(false);
    expect(takes('POST', `/do/${'a'.repeat(50)}.${'b'.repeat(50)}`)).toBe(false);
    expect(takes('POST', '/healthz')).toBe(false);
    expect(takes('POST', '/do', { ...JSON_HEADERS, origin: 'https://app.example' })).toBe(false);
    expect(takes('POST', '/do', { ...JSON_HEADERS, 'content-type': 'application/json; charset=latin1' })).toBe(false);
    expect(takes('POST', '/do', { ...JSON_HEADERS, 'content-type': 'text/plain' })).toBe(false);
    expect(takes('POST', '/do', { 'content-type': 'application/json', 'transfer-encoding': 'chunked' })).toBe(false);
    // A stated length does not make a chunked body the lane's.
    expect(takes('POST', '/do', { ...JSON_HEADERS, 'transfer-encoding': 'chunked' })).toBe(false);
    expect(takes('POST', '/do', { ...JSON_HEADERS, 'content-length': '0' })).toBe(false);
    expect(takes('POST', '/do', { ...JSON_HEADERS, 'content-length': '1001' })).toBe(false);
  });

  it('leaves a request to Fastify once the server is stopping', () => {
    expect(takes('POST', '/do', JSON_HEADERS, laneOf(true))).toBe(false);
  });
});

describe('answers through the lane and through Fastify', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  /** Request ids and timings differ from one request to the next; everything else must not. */
  const settled = (text: string) => text.replace(/req_[0-9A-Z]{26}/g, 'req_ID').replace(/"timing":[0-9.]+/g, '"timing":0');
  /**
   * Set aside: the headers Node's socket adds (an injected answer has no connection, and so no keep-alive),
   * the request id, the length (its timing's digits vary; each side's is checked against its body) and what is
   * left of the rate limit. `Connection: close` is compared.
   */
  const PER_REQUEST = new Set(['date', 'keep-alive', 'transfer-encoding', 'request-id', 'content-length', 'ratelimit']);
  const perRequest = (name: string, value: string) => PER_REQUEST.has(name) || (name === 'connection' && value === 'keep-alive');
  const lengthOf = (length: string | undefined, text: string) => (length === undefined ? undefined : Number(length) - Buffer.byteLength(text));

  async function both(path: string, body: string, headers: Record<string, string>) {
    const all = { 'content-type': 'application/json', ...headers };
    const overSocket = await fetch(server.url + path, { method: 'POST', headers: all, body });
    const socketHeaders: Record<string, string> = {};
    overSocket.headers.forEach((value, name) => {
      if (!perRequest(name, value)) socketHeaders[name] = value;
    });
    const socketText = await overSocket.text();
    const injected = await server.app.inject({ method: 'POST', url: path, headers: all, payload: body });
    const injectedHeaders: Record<string, string> = {};
    for (const [name, value] of Object.entries(injected.headers)) if (!perRequest(name, String(value))) injectedHeaders[name] = String(value);
    return {
      lane: { status: overSocket.status, headers: socketHeaders, body: settled(socketText), lengthOff: lengthOf(overSocket.headers.get('content-length') ?? undefined, socketText) },
      fastify: { status: injected.statusCode, headers: injectedHeaders, body: settled(injected.body), lengthOff: lengthOf(injected.headers['content-length'] as string | undefined, injected.body) },
    };
  }

  const auth = () => ({ authorization: `Bearer ${server.adminKey}`, 'x-entity-id': 'acme' });
  const cases: [name: string, path: string, body: () => string, headers: () => Record<string, string>, status: number][] = [
    ['a call', '/do', () => JSON.stringify(generateCall()), auth, 200],
    ['the path alias', '/do/ai.generate', () => JSON.stringify({ payload: generateCall().payload }), auth, 200],
    ['a version in the path', `/${versionInForce(platform, new Date().toISOString().slice(0, 10))}/do`, () => JSON.stringify(generateCall()), auth, 200],
    ['an unknown key', '/do', () => JSON.stringify(generateCall()), () => ({ ...auth(), authorization: `Bearer sk_test_${'x'.repeat(40)}` }), 401],
    ['no key', '/do', () => JSON.stringify(generateCall()), () => ({ 'x-entity-id': 'acme' }), 401],
    ['a body that is not JSON, which closes the connection', '/do', () => '{"face":', auth, 400],
    ['a __proto__ key', '/do', () => '{"face":"ai","action":"generate","payload":{"__proto__":{"x":1}}}', auth, 400],
    ['a body nested too deep', '/do', () => `{"face":"ai","action":"generate","payload":${'['.repeat(70)}${']'.repeat(70)}}`, auth, 400],
    ['an unknown envelope field', '/do', () => JSON.stringify({ ...generateCall(), extra: 1 }), auth, 400],
    ['an unknown face', '/do', () => JSON.stringify({ ...generateCall(), face: 'nope' }), auth, 404],
    ['a payload that breaks its schema', '/do', () => JSON.stringify(generateCall({ maxTokens: -1 })), auth, 400],
    ['an action that does not stream, asked to', '/do', () => JSON.stringify({ ...generateCall(), face: 'keys', action: 'list', payload: {}, options: { stream: true } }), auth, 400],
  ];

  it.each(cases)('%s', async (_name, path, body, headers, status) => {
    const { lane, fastify } = await both(path, body(), headers());
    expect(lane.status).toBe(status);
    expect(lane).toEqual(fastify);
  });

  it('closes the connection after a body that cannot be read, and keeps it after a call', async () => {
    const { port } = new URL(server.url);
    const head = (body: string) =>
      `POST /do HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\nAuthorization: Bearer ${server.adminKey}\r\nX-Entity-ID: acme\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    const bad = await exchange(Number(port), (socket) => socket.write(head('{"face":')));
    expect(bad.text).toMatch(/^HTTP\/1\.1 400 /);
    expect(bad.text).toMatch(/\r\nconnection: close\r\n/i);
    expect(bad.closed).toBe(true);
    const good = await exchange(Number(port), (socket) => socket.write(head(JSON.stringify(generateCall()))));
    expect(good.text).toMatch(/^HTTP\/1\.1 200 /);
    expect(good.closed).toBe(false);
  });

  it('a replayed answer, and a stream', async () => {
    const replayHeaders = { ...auth(), 'x-idempotency-key': `lane-${Date.now()}` };
    await server.post(generateCall(), { headers: replayHeaders });
    const replay = await both('/do', JSON.stringify(generateCall()), replayHeaders);
    expect(replay.lane.headers['idempotent-replayed']).toBe('true');
    expect(replay.lane).toEqual(replay.fastify);

    const streamed = await both('/do', JSON.stringify({ ...generateCall(), options: { stream: true } }), auth());
    expect(streamed.lane.headers['content-type']).toBe('text/event-stream');
    expect(streamed.lane.body).toContain('event: result');
    expect(streamed.lane).toEqual(streamed.fastify);
  });
});

/** Opens a connection, lets `send` write on it, and gives what came back within 300 ms, and whether the server closed it. */
async function exchange(port: number, send: (socket: Socket) => unknown): Promise<{ text: string; closed: boolean }> {
  const socket = connect(port, '127.0.0.1');
  let text = '';
  let closed = false;
  socket.on('data', (chunk) => (text += chunk.toString()));
  socket.on('close', () => (closed = true));
  await new Promise((resolve) => socket.on('connect', resolve));
  await send(socket);
  await new Promise((resolve) => setTimeout(resolve, 300));
  socket.destroy();
  return { text, closed };
}

describe('a call whose body comes once the server has begun to stop', () => {
  it('is refused with 503 shutting_down, and its connection closed', async () => {
    const server = await startServer();
    const { port } = new URL(server.url);
    const body = JSON.stringify(generateCall());
    const socket = connect(Number(port), '127.0.0.1');
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString()));
    const closed = new Promise((resolve) => socket.on('close', resolve));
    await new Promise((resolve) => socket.on('connect', resolve));
    socket.write(
      `POST /do HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.adminKey}\r\nX-Entity-ID: acme\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
    );
    // The headers are in: the lane has taken the request when the server begins to stop.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closing = server.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.write(body);
    await closed;
    await closing;
    expect(text).toMatch(/^HTTP\/1\.1 503 /);
    expect(text).toMatch(/\r\nconnection: close\r\n/i);
    expect(text).toMatch(/\r\nretry-after: 1\r\n/i);
    expect(text).toContain('"code":"shutting_down"');
  });
});
