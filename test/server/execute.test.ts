/**
 * Execution under the time-out, and failures inside handlers: the abort reaches the handler, a thrown
 * non-API error becomes a 500 that reveals nothing, and provider errors keep their codes. Under an
 * idempotency key, a retryable answer that changed nothing (502, 503) leaves the key to the retry, while a
 * time-out with no outside effect is stored and replayed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TextModel } from '../../src/providers/text-model.js';
import { ApiError } from '../../src/core/errors.js';
import { generateCall, startServer, type TestServer } from '../helpers/server.js';

let aborted: unknown;
/** While set, the prompt `flaky` finds the provider down; `upstream` counts the calls it fails. */
let down = false;
let upstreamCalls = 0;
/** Stands in for a live provider: behaviour picked by the prompt. */
const liveModel: TextModel = {
  async generate(request) {
    if (request.prompt === 'hang') {
      return new Promise((_, reject) =>
        request.signal.addEventListener('abort', () => {
          aborted = request.signal.reason;
          reject(request.signal.reason);
        }),
      );
    }
    if (request.prompt === 'ignore') return new Promise(() => {});
    if (request.prompt === 'crash') throw new Error('secret connection string postgres://admin:hunter2@db');
    if (request.prompt === 'flaky' && down) throw new ApiError('provider_unavailable', 'The model provider is down.');
    if (request.prompt === 'upstream') {
      upstreamCalls++;
      throw new ApiError('provider_failed', 'The model provider answered 500.', { details: { upstreamStatus: 500 } });
    }
    return { text: 'live answer', model: request.model, tokens: { input: 1, output: 2 } };
  },
};

let server: TestServer;
let live: Record<string, string>;
beforeAll(async () => {
  server = await startServer({ providers: { live: liveModel } });
  live = { authorization: `Bearer ${(await server.key({ mode: 'live' })).secret}` };
});
afterAll(() => server.close());

describe('execution', () => {
  it('answers 504 when the time-out fires, and aborts the handler', async () => {
    const reply = await server.post({ ...generateCall({ prompt: 'hang' }), options: { timeout: 50 } }, { headers: live });
    expect(reply.status).toBe(504);
    expect(reply.body.error).toMatchObject({ type: 'timeout_error', code: 'timeout', details: { timeoutMs: 50 } });
    expect(aborted).toBeInstanceOf(ApiError);
  });

  it('answers 504 even when the handler ignores its signal', async () => {
    const started = Date.now();
    const reply = await server.post({ ...generateCall({ prompt: 'ignore' }), options: { timeout: 100 } }, { headers: live });
    expect(reply.status).toBe(504);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('turns an unexpected error into a 500 that leaks nothing', async () => {
    const reply = await server.post(generateCall({ prompt: 'crash' }), { headers: live });
    expect(reply.status).toBe(500);
    expect(reply.body.error).toMatchObject({ type: 'api_error', code: 'internal_error' });
    expect(JSON.stringify(reply.body)).not.toContain('hunter2');
    expect(JSON.stringify(reply.body)).not.toContain('.ts:');
  });

  it('passes provider errors through with their status', async () => {
    const reply = await server.post(generateCall({ prompt: 'upstream' }), { headers: live });
    expect(reply.status).toBe(502);
    expect(reply.body.error).toMatchObject({ type: 'provider_error', code: 'provider_failed', details: { upstreamStatus: 500 } });
  });

  it('routes live keys to the live provider and test keys to the test model', async () => {
    const liveReply = await server.post(generateCall({ prompt: 'hello' }), { headers: live });
    expect(liveReply.body.data.text).toBe('live answer');
    const testReply = await server.post(generateCall({ prompt: 'hello' }));
    expect(testReply.status).toBe(200);
    expect(testReply.body.data.text).not.toBe('live answer');
  });
});

describe('failed executions under an idempotency key', () => {
  it('leaves the key free after a 503 that changed nothing: the retry runs, and succeeds once the provider is back', async () => {
    const headers = { ...live, 'x-idempotency-key': `flaky-${Date.now()}` };
    down = true;
    try {
      const failed = await server.post(generateCall({ prompt: 'flaky' }), { headers });
      expect([failed.status, failed.body.error.code]).toEqual([503, 'provider_unavailable']);
    } finally {
      down = false;
    }
    const retried = await server.post(generateCall({ prompt: 'flaky' }), { headers });
    expect([retried.status, retried.headers.get('idempotent-replayed'), retried.body.data?.text]).toEqual([200, null, 'live answer']);
    // Now that it succeeded, the key replays the success.
    const replayed = await server.post(generateCall({ prompt: 'flaky' }), { headers });
    expect([replayed.status, replayed.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
  });

  it('runs a call again after its 502 rather than replaying it', async () => {
    const headers = { ...live, 'x-idempotency-key': `upstream-${Date.now()}` };
    const before = upstreamCalls;
    const first = await server.post(generateCall({ prompt: 'upstream' }), { headers });
    const second = await server.post(generateCall({ prompt: 'upstream' }), { headers });
    expect([first.status, second.status, second.headers.get('idempotent-replayed')]).toEqual([502, 502, null]);
    expect(upstreamCalls - before).toBe(2);
  });

  it('keeps the 504 of a call with no outside effect: the same key replays it', async () => {
    const headers = { ...live, 'x-idempotency-key': `slow-${Date.now()}` };
    const call = { ...generateCall({ prompt: 'hang' }), options: { timeout: 50 } };
    const first = await server.post(call, { headers });
    const again = await server.post(call, { headers });
    expect([first.status, again.status, again.headers.get('idempotent-replayed'), again.body.error.code]).toEqual([504, 504, 'true', 'timeout']);
    expect(again.body.error.message).toBe(first.body.error.message);
  });
});
