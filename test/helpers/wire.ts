/**
 * A local `node:http` server for client tests that speak the wire format by hand: it hands each request
 * (method, URL, headers, parsed body) and its response to the test, which answers as it likes. With
 * helpers for JSON answers, answers in sequence and a `sleep` that records instead of waiting.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingHttpHeaders;
  body: any;
}

export type Respond = (res: ServerResponse) => void;

export const KEY = 'sk_test_0123456789abcdefghijklmnopqrstuv';
export const META = { timing: 1.5, requestId: 'req_01TEST', version: '9.9.9' };

export interface WireServer {
  url: string;
  close(): Promise<void>;
}

export async function startWireServer(onRequest: (request: Received, res: ServerResponse) => void): Promise<WireServer> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      onRequest({ method: req.method, url: req.url, headers: req.headers, body: text ? JSON.parse(text) : undefined }, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Respond {
  return (res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
}

/** An error envelope with the given status and code. */
export function failure(status: number, code: string, headers: Record<string, string> = {}): Respond {
  return json(status, { error: { type: 'api_error', code, message: `${code} happened.` }, meta: META }, headers);
}

/** Answers its n-th request with the n-th handler, and any later one with the last. */
export function inOrder(...handlers: Respond[]): Respond {
  let count = 0;
  return (res) => handlers[Math.min(count++, handlers.length - 1)]!(res);
}

/** A `sleep` for ClientOptions that returns at once and records what it was asked to wait. */
export function recordSleeps() {
  const sleeps: number[] = [];
  return { sleeps, sleep: async (ms: number) => void sleeps.push(ms) };
}
