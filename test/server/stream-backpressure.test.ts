/**
 * Streams and clients that do not read: a live provider streaming a long answer (a local server speaking
 * OpenAI's chunked SSE) is slowed to the client's pace instead of being buffered in the server, and a client
 * that stays behind past the stall limit has its stream ended, which aborts the upstream call.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAiCompatibleModel } from '../../src/providers/openai-compatible.js';
import { startServer, type TestServer } from '../helpers/server.js';

const CHUNK = `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'x'.repeat(4096) } }] })}\n\n`;
const LIMIT = 200 * 1024 * 1024;

let upstream: Server;
let written = 0;
let upstreamClosedAt = 0;
let server: TestServer;

/** Streams chunks as fast as the reader takes them, up to LIMIT bytes; notes how much it wrote and when it was cut off. */
async function stream(res: ServerResponse): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.on('close', () => (upstreamClosedAt = Date.now()));
  while (written < LIMIT && !res.destroyed) {
    written += CHUNK.length;
    if (!res.write(CHUNK)) await drainedOrClosed(res);
  }
}

/** Waits for the reader to take more, or to go; neither listener outlives the wait (a long stream waits often). */
function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const settle = () => {
      res.off('drain', settle).off('close', settle);
      resolve();
    };
    res.on('drain', settle).on('close', settle);
  });
}

beforeAll(async () => {
  upstream = createServer((req, res) => {
    req.resume();
    void stream(res);
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
  const baseUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;
  server = await startServer({ providers: { live: openAiCompatibleModel({ baseUrl, apiKey: 'sk-up', modelMap: {} }) }, streamStallMs: 500 });
});
afterAll(async () => {
  await server.close();
  upstream.closeAllConnections();
  upstream.close();
});

describe('a streaming client that does not read', () => {
  it('holds the provider back to its pace, then ends the stall and the upstream call', async () => {
    const key = (await server.key({ mode: 'live' })).secret;
    const body = JSON.stringify({ face: 'ai', action: 'generate', payload: { model: 'gpt-4o', prompt: 'Write a very long story.' }, options: { stream: true, timeout: 60_000 } });
    const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    // Never reads: the kernel's buffers fill, then the server's.
    socket.pause();
    const sentAt = Date.now();
    socket.write(
      `POST /do HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nX-Entity-ID: acme\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    const closed = new Promise((r) => socket.once('close', r));
    await new Promise((r) => setTimeout(r, 4000));
    // The upstream was held back: without backpressure it would have sent all 200 MiB within a second or two.
    expect(written).toBeLessThan(64 * 1024 * 1024);
    expect(upstreamClosedAt).toBeGreaterThan(sentAt);
    expect(upstreamClosedAt - sentAt).toBeLessThan(4000);
    socket.resume();
    await closed;
  });
});
