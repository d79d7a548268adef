/**
 * The OpenAI-compatible embedding model against a real local HTTP server that speaks OpenAI's embeddings wire
 * format and checks requests the way OpenAI does: the request body, the answer read back in input order,
 * upstream errors, time-outs and aborts mapped as for chat completions. Also the environment's wiring
 * (`createProviders`, `aiModelsFromEnv`).
 */
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { aiModelsFromEnv, createProviders } from '../../src/providers/config.js';
import type { EmbeddingRequest } from '../../src/providers/embedding-model.js';
import { TEST_MODELS } from '../../src/providers/model-list.js';
import { openAiCompatibleEmbeddings } from '../../src/providers/openai-embeddings.js';
import { testEmbeddingModel } from '../../src/providers/test-embeddings.js';
import { ApiError } from '../../src/core/errors.js';
import { shippedStatus } from '../helpers/errors.js';
import { FAKE_API_KEY, fakeTokens, fakeVector, json, openAiError, startFakeEmbeddings, type FakeEmbeddings } from '../helpers/fake-openai-embeddings.js';

let fake: FakeEmbeddings;
beforeAll(async () => {
  fake = await startFakeEmbeddings();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const modelFor = (overrides: { baseUrl?: string; apiKey?: string; timeoutMs?: number } = {}) =>
  openAiCompatibleEmbeddings({ baseUrl: fake.baseUrl, apiKey: FAKE_API_KEY, modelMap: { embed: 'text-embedding-3-small', old: 'text-embedding-ada-002' }, ...overrides });

const request = (overrides: Partial<EmbeddingRequest> = {}): EmbeddingRequest => ({
  model: 'embed',
  input: ['The food was delicious.', 'The service was slow.'],
  dimensions: 8,
  signal: new AbortController().signal,
  ...overrides,
});

/** The ApiError a promise rejects with; fails the test when it resolves or rejects with something else. */
async function apiError(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe('openAiCompatibleEmbeddings: the request', () => {
  it('posts the mapped model, the texts, floats and the dimensions, with the key', async () => {
    await modelFor().embed(request());
    expect(fake.requests).toHaveLength(1);
    const [call] = fake.requests;
    expect(call!.method).toBe('POST');
    expect(call!.url).toBe('/v1/embeddings');
    expect(call!.headers.authorization).toBe(`Bearer ${FAKE_API_KEY}`);
    expect(call!.headers['content-type']).toBe('application/json');
    expect(call!.body).toEqual({
      model: 'text-embedding-3-small',
      input: ['The food was delicious.', 'The service was slow.'],
      encoding_format: 'float',
      dimensions: 8,
    });
  });

  it('sends an unmapped model unchanged and no dimensions when none are asked for', async () => {
    await modelFor().embed(request({ model: 'text-embedding-3-large', dimensions: undefined, input: ['x'] }));
    expect(fake.requests[0]!.body).toEqual({ model: 'text-embedding-3-large', input: ['x'], encoding_format: 'float' });
  });

  it('accepts a base URL with a trailing slash', async () => {
    await modelFor({ baseUrl: `${fake.baseUrl}/` }).embed(request());
    expect(fake.requests[0]!.url).toBe('/v1/embeddings');
  });
});

describe('openAiCompatibleEmbeddings: the answer', () => {
  it('returns one vector per text in input order, the token usage, under the requested model name', async () => {
    const input = ['The food was delicious.', 'The service was slow.', 'ok'];
    const result = await modelFor().embed(request({ input }));
    expect(result).toEqual({ model: 'embed', vectors: input.map((text) => fakeVector(text, 8)), tokens: { input: fakeTokens(input) } });
  });

  it('takes the model’s own length when no dimensions are asked for', async () => {
    const result = await modelFor().embed(request({ dimensions: undefined, input: ['one'] }));
    expect(result.vectors[0]).toHaveLength(1536);
  });

  it('puts the vectors back in input order by their index', async () => {
    fake.override = (res, _body, answer) => json(res, 200, { ...answer, data: [...answer.data].reverse() });
    const input = ['first text', 'second', 'third one here'];
    const result = await modelFor().embed(request({ input }));
    expect(result.vectors).toEqual(input.map((text) => fakeVector(text, 8)));
  });

  it.each<[string, (answer: any) => unknown]>([
    ['not JSON', () => 'ok'],
    ['no data', (a) => ({ ...a, data: undefined })],
    ['one vector too few', (a) => ({ ...a, data: a.data.slice(1) })],
    ['an index given twice', (a) => ({ ...a, data: a.data.map((d: any) => ({ ...d, index: 0 })) })],
    ['an index out of range', (a) => ({ ...a, data: a.data.map((d: any, i: number) => ({ ...d, index: i + 1 })) })],
    ['base64 instead of floats', (a) => ({ ...a, data: a.data.map((d: any) => ({ ...d, embedding: 'AAAAAA==' })) })],
    ['a number that is not one', (a) => ({ ...a, data: a.data.map((d: any) => ({ ...d, embedding: [...d.embedding.slice(1), 'NaN'] })) })],
    ['vectors of other lengths than asked for', (a) => ({ ...a, data: a.data.map((d: any) => ({ ...d, embedding: d.embedding.slice(1) })) })],
    ['no usage', (a) => ({ ...a, usage: undefined })],
    ['negative usage', (a) => ({ ...a, usage: { prompt_tokens: -1, total_tokens: -1 } })],
  ])('turns a 200 with %s into 502 provider_failed', async (_, change) => {
    fake.override = (res, _body, answer) => {
      const changed = change(answer);
      if (typeof changed === 'string') res.writeHead(200, { 'content-type': 'text/plain' }).end(changed);
      else json(res, 200, changed);
    };
    const error = await apiError(modelFor().embed(request()));
    expect(error.code).toBe('provider_failed');
    expect(shippedStatus(error)).toBe(502);
    expect(error.message).toContain('not an embedding list');
    expect(error.details).toEqual({ upstreamStatus: 200 });
  });
});

describe('openAiCompatibleEmbeddings: errors, mapped as for chat completions', () => {
  it('turns an unknown upstream model into 400 model_not_available', async () => {
    const error = await apiError(modelFor().embed(request({ model: 'gpt-99' })));
    expect(error.code).toBe('model_not_available');
    expect(shippedStatus(error)).toBe(400);
    expect(error.details).toEqual({ model: 'gpt-99', upstreamStatus: 404 });
  });

  it('turns a 400 into 502 provider_failed with the upstream message', async () => {
    const error = await apiError(modelFor().embed(request({ model: 'old' })));
    expect(error.code).toBe('provider_failed');
    expect(shippedStatus(error)).toBe(502);
    expect(error.details).toEqual({ upstreamStatus: 400, upstreamMessage: 'This model does not support specifying dimensions.' });
  });

  it('turns a 429 into 503 provider_unavailable, passing Retry-After on', async () => {
    fake.override = (res) => openAiError(res, 429, 'Rate limit reached for text-embedding-3-small.', 'requests', 'rate_limit_exceeded', { 'retry-after': '3' });
    const error = await apiError(modelFor().embed(request()));
    expect(error.code).toBe('provider_unavailable');
    expect(shippedStatus(error)).toBe(503);
    expect(error.details).toEqual({ upstreamStatus: 429 });
    expect(error.headers).toEqual({ 'Retry-After': '3' });
  });

  it('never passes a wrong API key on when the provider quotes it', async () => {
    const error = await apiError(modelFor({ apiKey: 'sk-proj-WRONGkey0123456789' }).embed(request()));
    expect(error.code).toBe('provider_failed');
    expect(error.details!.upstreamStatus).toBe(401);
    expect(JSON.stringify({ message: error.message, details: error.details })).not.toContain('WRONGkey');
  });

  it('turns a refused connection into 503 provider_unavailable', async () => {
    const closed = await startFakeEmbeddings();
    const baseUrl = closed.baseUrl;
    await closed.close();
    const error = await apiError(modelFor({ baseUrl }).embed(request()));
    expect(error.code).toBe('provider_unavailable');
    expect(error.details).toEqual({ reason: 'ECONNREFUSED' });
  });

  it('turns its own time-out into 503 provider_unavailable', async () => {
    fake.override = () => {}; // never answers
    const error = await apiError(modelFor({ timeoutMs: 100 }).embed(request()));
    expect(error.code).toBe('provider_unavailable');
    expect(error.details).toEqual({ timeoutMs: 100 });
  });
});

describe('openAiCompatibleEmbeddings: aborts', () => {
  it('rejects with the signal reason, unwrapped, when the caller aborts mid-call', async () => {
    let arrived!: () => void;
    const requestArrived = new Promise<void>((resolve) => (arrived = resolve));
    fake.override = () => arrived(); // never answers
    const controller = new AbortController();
    const reason = new Error('the call timed out');
    const pending = modelFor({ timeoutMs: 10_000 }).embed(request({ signal: controller.signal }));
    await requestArrived;
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });

  it('rejects with the signal reason while the body is still arriving', async () => {
    let arrived!: () => void;
    const headersSent = new Promise<void>((resolve) => (arrived = resolve));
    fake.override = (res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"object": "list", "data": [');
      arrived();
    };
    const controller = new AbortController();
    const reason = new Error('caller went away');
    const pending = modelFor().embed(request({ signal: controller.signal }));
    await headersSent;
    await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });

  it('sends nothing when the signal is already aborted', async () => {
    const controller = new AbortController();
    const reason = new Error('already gone');
    controller.abort(reason);
    await expect(modelFor().embed(request({ signal: controller.signal }))).rejects.toBe(reason);
    expect(fake.requests).toHaveLength(0);
  });
});

describe('the environment', () => {
  const env = () => ({ AI_BASE_URL: fake.baseUrl, AI_API_KEY: FAKE_API_KEY, AI_MODEL_MAP: 'embed=text-embedding-3-small,fast=gpt-4o-mini' });

  it('has only the test embeddings without AI_BASE_URL, and the live ones with it', async () => {
    const offline = createProviders({ AI_API_KEY: FAKE_API_KEY });
    expect(offline.embeddings.test).toBe(testEmbeddingModel);
    expect(offline.embeddings.live).toBeUndefined();
    const result = await createProviders(env()).embeddings.live!.embed(request({ input: ['hello there'] }));
    expect(result).toEqual({ model: 'embed', vectors: [fakeVector('hello there', 8)], tokens: { input: 2 } });
    expect(fake.requests[0]!.body.model).toBe('text-embedding-3-small');
  });

  it('lists the test model’s names, and the names of AI_MODEL_MAP with their provider models when there is a provider', () => {
    expect(aiModelsFromEnv({ AI_MODEL_MAP: 'embed=text-embedding-3-small' })).toEqual({ test: TEST_MODELS });
    expect(aiModelsFromEnv(env())).toEqual({
      test: TEST_MODELS,
      live: [
        { id: 'embed', providerModel: 'text-embedding-3-small' },
        { id: 'fast', providerModel: 'gpt-4o-mini' },
      ],
    });
    expect(aiModelsFromEnv({ AI_BASE_URL: fake.baseUrl })).toEqual({ test: TEST_MODELS, live: [] });
  });

  it('refuses a bad AI_MODEL_MAP or AI_BASE_URL when listing too, naming the variable', () => {
    expect(() => aiModelsFromEnv({ AI_MODEL_MAP: 'embed' })).toThrow(/AI_MODEL_MAP/);
    expect(() => aiModelsFromEnv({ AI_BASE_URL: 'api.openai.com/v1' })).toThrow(/AI_BASE_URL/);
  });
});
