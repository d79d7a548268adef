/**
 * Streams (docs/contract.md § Streaming) read with a real SSE parser from a real HTTP connection: event order and ids, deltas
 * against the final text, progress of a long task, pings, the terminal event in every failure case, a
 * client that disconnects (the handler sees the abort), the time-out over the whole stream, and replays.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform } from '../../generated/server/platform.js';
import { versionInForce } from '../../src/spec/version-in-force.js';
import { ApiError } from '../../src/core/errors.js';
import type { TextModel } from '../../src/providers/text-model.js';
import { postStream, type SseEvent } from '../helpers/sse.js';
import { generateCall, startServer, type TestServer } from '../helpers/server.js';

/** What the paced live model saw of its last call. */
const seen = { aborted: false, reason: undefined as unknown };

/**
 * A live model that streams `pieces` one every `delayMs` (the prompt says how many, how fast, and whether
 * it fails half-way), recording whether its call was aborted.
 */
const pacedModel: TextModel = {
  async generate(request) {
    const [count, delayMs, mode] = request.prompt.split(' ');
    const pieces = Array.from({ length: Number(count) }, (_, i) => `w${i} `);
    seen.aborted = false;
    request.signal.addEventListener('abort', () => ((seen.aborted = true), (seen.reason = request.signal.reason)), { once: true });
    for (const [i, piece] of pieces.entries()) {
      await new Promise((resolve) => setTimeout(resolve, Number(delayMs)));
      request.signal.throwIfAborted();
      if (mode === 'fail' && i === 2) throw new ApiError('provider_failed', 'The model broke down mid-answer.');
      request.onDelta?.(piece);
    }
    return { text: pieces.join(''), model: request.model, tokens: { input: 1, output: pieces.length } };
  },
};

let server: TestServer;
let live: Record<string, string>;
beforeAll(async () => {
  server = await startServer({ providers: { live: pacedModel }, streamPingMs: 40 });
  live = { ...headers(server.adminKey), authorization: `Bearer ${(await server.key({ mode: 'live' })).secret}` };
});
afterAll(() => server.close());

function headers(key: string, extra: Record<string, string> = {}) {
  return { authorization: `Bearer ${key}`, 'x-entity-id': 'acme', ...extra };
}
const stream = (payload: Record<string, unknown>, extra: { timeout?: number; idempotencyKey?: string } = {}) => ({
  ...generateCall(payload),
  options: { stream: true, ...extra },
});
/** Event names in order; pings (every 40 ms here) may fall anywhere and are left out. */
const names = (events: SseEvent[]) => events.map((e) => e.event).filter((n) => n !== 'ping');
const terminal = (events: SseEvent[]) => events.filter((e) => e.event === 'result' || e.event === 'error');

describe('ai.generate as a stream', () => {
  it('sends start, deltas that concatenate to the result text, and one result, with sequential ids', async () => {
    const reply = await postStream(server.url, stream({ prompt: 'Tell me about rivers', maxTokens: 40 }), headers(server.adminKey));
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('text/event-stream');
    expect(reply.headers.get('request-id')).toMatch(/^req_/);
    // The version a call that names none is served today (a version takes effect on its date).
    const inForce = versionInForce(platform, new Date().toISOString().slice(0, 10));
    expect(reply.headers.get('x-api-version')).toBe(inForce);
    expect(reply.headers.get('ratelimit-policy')).toContain('"token"');
    const { events } = reply;
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => String(i + 1)));
    expect(events[0]).toMatchObject({ event: 'start', data: { requestId: reply.headers.get('request-id'), apiVersion: inForce } });
    expect(names(events.slice(1, -1)).every((n) => n === 'delta')).toBe(true);
    expect(events.length).toBeGreaterThan(5);
    const result = events.at(-1)!;
    expect(result.event).toBe('result');
    expect(result.data.meta.requestId).toBe(reply.headers.get('request-id'));
    const text = events.filter((e) => e.event === 'delta').map((e) => e.data.text).join('');
    expect(text).toBe(result.data.data.text);
    // The same call answered as JSON gives the same text: streaming changes the delivery, not the answer.
    const plain = await server.post(generateCall({ prompt: 'Tell me about rivers', maxTokens: 40 }));
    expect(plain.body.data.text).toBe(text);
  });

  it('is asked for with Accept: text/event-stream as well', async () => {
    const reply = await postStream(server.url, generateCall({ prompt: 'Accept header' }), headers(server.adminKey, { accept: 'text/event-stream' }));
    expect(names(reply.events)[0]).toBe('start');
    expect(names(terminal(reply.events))).toEqual(['result']);
  });

  it('emits ai.generate.completed marked as streamed', async () => {
    const reply = await postStream(server.url, stream({ prompt: 'An event please' }), headers(server.adminKey));
    const requestId = reply.events[0]!.data.requestId as string;
    const rows = await server.db.selectFrom('events').selectAll().where('request_id', '=', requestId).execute();
    expect(rows.map((r) => r.type)).toEqual(['ai.generate.completed']);
    expect(JSON.parse(rows[0]!.data)).toMatchObject({ streamed: true, tokens: reply.events.at(-1)!.data.data.tokens });
  });
});

describe('errors', () => {
  it('answers errors found before the stream opens as ordinary JSON', async () => {
    const invalid = await postStream(server.url, stream({ prompt: '' }), headers(server.adminKey));
    expect(invalid.status).toBe(400);
    expect(invalid.json.error.code).toBe('payload_invalid');
    const unauthenticated = await postStream(server.url, stream({}), headers('sk_test_nope'));
    expect(unauthenticated.status).toBe(401);
    const notStreaming = await postStream(server.url, { face: 'auth', action: 'logout', payload: { token: 'x' }, options: { stream: true } }, headers(server.adminKey));
    expect(notStreaming.status).toBe(400);
    expect(notStreaming.json.error.code).toBe('stream_not_supported');
  });

  it('ends a stream whose action fails mid-way with one error event, not a broken connection', async () => {
    const reply = await postStream(server.url, stream({ prompt: '6 5 fail' }), live);
    expect(reply.status).toBe(200);
    expect(names(reply.events)).toEqual(['start', 'delta', 'delta', 'error']);
    expect(reply.events.at(-1)!.data.error).toMatchObject({ type: 'provider_error', code: 'provider_failed' });
    expect(reply.events.at(-1)!.data.meta.requestId).toBe(reply.events[0]!.data.requestId);
  });

  it('applies the time-out to the whole stream: the handler is aborted and the stream ends with a timeout error', async () => {
    const reply = await postStream(server.url, stream({ prompt: '50 30' }, { timeout: 200 }), live);
    const last = reply.events.at(-1)!;
    expect(last.event).toBe('error');
    expect(last.data.error).toMatchObject({ type: 'timeout_error', code: 'timeout', details: { timeoutMs: 200 } });
    expect(terminal(reply.events)).toHaveLength(1);
    expect(reply.events.filter((e) => e.event === 'delta').length).toBeGreaterThan(1);
    expect(seen.aborted).toBe(true);
  });
});

describe('a long stream', () => {
  it('pings while the action works', async () => {
    const reply = await postStream(server.url, stream({ prompt: '4 60' }), live);
    expect(reply.events.map((e) => e.event)).toContain('ping');
    expect(reply.events.find((e) => e.event === 'ping')!.data).toEqual({});
    expect(names(terminal(reply.events))).toEqual(['result']);
  });

  it('aborts the handler when the client disconnects, and keeps the aborted answer under its idempotency key', async () => {
    const key = `disconnect-${Date.now()}`;
    const reply = await postStream(server.url, stream({ prompt: '12 25' }, { idempotencyKey: key }), live, (event) => (event.event === 'delta' ? 'abort' : undefined));
    expect(names(reply.events)).toEqual(['start', 'delta']);
    await expect.poll(() => seen.aborted, { timeout: 2000 }).toBe(true);
    expect((seen.reason as Error).name).toBe('ClientGoneError');
    // A retry under the same key replays the stored outcome rather than running (and paying for) it again;
    // until the outcome is stored, the key is still in use (409).
    await expect.poll(async () => (await server.post({ ...stream({ prompt: '12 25' }), options: { idempotencyKey: key } }, { headers: live })).status).toBe(499);
    seen.aborted = false;
    const retry = await postStream(server.url, stream({ prompt: '12 25' }, { idempotencyKey: key }), live);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(names(retry.events)).toEqual(['start', 'error']);
    expect(retry.events.at(-1)!.data.error).toMatchObject({ code: 'request_aborted' });
    expect(seen.aborted).toBe(false);
  });

  it('reports progress of a bulk import up to its total', async () => {
    const users = Array.from({ length: 5 }, (_, i) => ({ email: `import${i}-${Date.now()}@example.com`, password: 'long enough' }));
    const reply = await postStream(server.url, { face: 'auth', action: 'import', payload: { users }, options: { stream: true } }, headers(server.adminKey));
    const progress = reply.events.filter((e) => e.event === 'progress').map((e) => e.data);
    expect(progress.map((p) => p.completed)).toEqual([1, 2, 3, 4, 5]);
    expect(progress.every((p) => p.total === 5 && p.message === 'Hashing passwords')).toBe(true);
    expect(reply.events.at(-1)!.data.data.users.map((u: { email: string }) => u.email)).toEqual(users.map((u) => u.email));
  });
});

describe('idempotent streams', () => {
  it('replays a finished stream as its start and stored terminal event, with no second effect', async () => {
    const key = `stream-replay-${Date.now()}`;
    const first = await postStream(server.url, stream({ prompt: 'Replay me' }, { idempotencyKey: key }), headers(server.adminKey));
    const second = await postStream(server.url, stream({ prompt: 'Replay me' }, { idempotencyKey: key }), headers(server.adminKey));
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(names(second.events)).toEqual(['start', 'result']);
    expect(second.events[1]!.data).toEqual(first.events.at(-1)!.data);
    const requestId = first.events[0]!.data.requestId as string;
    const emitted = await server.db.selectFrom('events').select('id').where('idempotency_key', '=', key).execute();
    expect(emitted).toHaveLength(1);
    expect(second.events[0]!.data.requestId).toBe(requestId);
  });

  it('replays the stored answer as JSON to a caller that does not stream', async () => {
    const key = `stream-then-json-${Date.now()}`;
    const first = await postStream(server.url, stream({ prompt: 'Both ways' }, { idempotencyKey: key }), headers(server.adminKey));
    const plain = await server.post({ ...generateCall({ prompt: 'Both ways' }), options: { idempotencyKey: key } });
    expect(plain.headers.get('idempotent-replayed')).toBe('true');
    expect(plain.body).toEqual(first.events.at(-1)!.data);
  });
});
