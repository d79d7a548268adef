/**
 * The server's log as an operator reads it: `dispatch serve` with LOG_REQUESTS=1 writes one JSON line per
 * call on stderr, with the request id the client got as Request-Id, the action, the status and the time;
 * without LOG_REQUESTS a call writes nothing.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { printedKey, serve, type ServeProcess } from '../helpers/process.js';

const started: ServeProcess[] = [];
afterAll(async () => {
  for (const server of started) await server.stop();
});

async function start(env: Record<string, string>) {
  const server = await serve({ DATA_DIR: mkdtempSync(join(tmpdir(), 'dispatch-logs-')), ...env });
  started.push(server);
  return { server, key: printedKey(server.output()) };
}

async function call(url: string, key: string, body: unknown) {
  return fetch(`${url}/do`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'x-entity-id': 'demo', 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

/** The JSON lines of the output (the banner and the key block are text). */
const jsonLines = (output: string) =>
  output.split('\n').flatMap((line) => {
    if (!line.startsWith('{')) return [];
    return [JSON.parse(line) as Record<string, unknown>];
  });

describe('the server log', () => {
  it('writes one JSON line per call with its request id when LOG_REQUESTS=1', async () => {
    const { server, key } = await start({ LOG_REQUESTS: '1' });
    const answer = await call(server.url, key, { face: 'ai', action: 'generate', payload: { model: 'gpt-4o-mini', prompt: 'Say hello' } });
    const refused = await call(server.url, key, { face: 'ai', action: 'nope', payload: {} });
    const ids = [answer.headers.get('request-id'), refused.headers.get('request-id')];
    await new Promise((resolve) => setTimeout(resolve, 200));
    const calls = jsonLines(server.output()).filter((line) => line.msg === 'call');
    expect(calls.map((line) => [line.requestId, line.action, line.status, line.level])).toEqual([
      [ids[0], 'ai.generate', 200, 30],
      [ids[1], undefined, 404, 30],
    ]);
    expect(calls[0]).toMatchObject({ entity: 'demo', ms: expect.any(Number), time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/) });
  }, 60_000);

  it('writes no line for a call without LOG_REQUESTS', async () => {
    const { server, key } = await start({});
    const answer = await call(server.url, key, { face: 'ai', action: 'generate', payload: { model: 'gpt-4o-mini', prompt: 'Say hello' } });
    expect(answer.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(jsonLines(server.output()).filter((line) => line.msg === 'call')).toEqual([]);
  }, 60_000);
});
