/**
 * `ai.embed` and `ai.models` over real HTTP, on SQLite and on PostgreSQL. Test keys: the test model's
 * deterministic unit vectors, their token count reported as usage and priced, bad input refused at its
 * field, the test model's names. Live keys: 503 without a provider, and with one (a local server speaking
 * OpenAI's embeddings wire format, wired from the environment) the mapped call end to end, provider errors
 * and the call's time-out, and the names of AI_MODEL_MAP. Scopes: `ai:embed` and `ai:read`.
 */
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { aiModelsFromEnv, createProviders } from '../../src/providers/config.js';
import { TEST_MODELS } from '../../src/providers/model-list.js';
import { testVector } from '../../src/providers/test-embeddings.js';
import { FAKE_API_KEY, fakeTokens, fakeVector, openAiError, startFakeEmbeddings, type FakeEmbeddings } from '../helpers/fake-openai-embeddings.js';
import { startServer, type TestServer } from '../helpers/server.js';

const length = (vector: number[]) => Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
const as = (key: string) => ({ headers: { authorization: `Bearer ${key}` } });
const embed = (payload: unknown) => ({ face: 'ai', action: 'embed', payload });
const models = { face: 'ai', action: 'models', payload: {} };

describe.each([
  { name: 'SQLite', postgres: false },
  { name: 'PostgreSQL', postgres: true },
])('ai.embed and ai.models on $name', ({ postgres }) => {
  let fake: FakeEmbeddings;
  /** A server with a live provider configured from the environment, and one without. */
  let server: TestServer;
  let unconfigured: TestServer;
  let live: string;
  beforeAll(async () => {
    fake = await startFakeEmbeddings();
    const env = { AI_BASE_URL: fake.baseUrl, AI_API_KEY: FAKE_API_KEY, AI_MODEL_MAP: '{"embed": "text-embedding-3-small", "fast": "gpt-4o-mini"}' };
    const providers = createProviders(env);
    server = await startServer({ postgres, usageFlushMs: 30, providers: providers.ai, embeddings: providers.embeddings, aiModels: { live: aiModelsFromEnv(env).live! } });
    unconfigured = await startServer();
    live = (await server.key({ mode: 'live' })).secret;
  });
  afterAll(async () => {
    await server?.close();
    await unconfigured?.close();
    await fake?.close();
  });
  beforeEach(() => fake.reset());

  describe('test mode', () => {
    it('embeds one string as one unit vector of 1536 numbers, the same every time', async () => {
      const first = await server.post(embed({ model: 'text-embedding-3-small', input: 'The food was delicious.' }));
      expect(first.status).toBe(200);
      const { data } = first.body;
      expect(data.model).toBe('text-embedding-3-small');
      expect(data.vectors).toHaveLength(1);
      expect(data.vectors[0]).toHaveLength(1536);
      expect(length(data.vectors[0])).toBeCloseTo(1, 12);
      expect(data.tokens).toEqual({ input: 5 });
      const again = await server.post(embed({ model: 'text-embedding-3-small', input: ['The food was delicious.'] }));
      expect(again.body.data).toEqual(data);
      expect(fake.requests).toHaveLength(0);
    });

    it('embeds a list in order, each text as it would be alone, and gives different texts different vectors', async () => {
      const input = ['The food was delicious.', 'The service was slow.', 'The food was delicious!'];
      const reply = await server.post(embed({ model: 'text-embedding-3-large', input, dimensions: 16 }));
      expect(reply.status).toBe(200);
      expect(reply.body.data.vectors).toEqual(input.map((text) => testVector('text-embedding-3-large', text, 16)));
      expect(new Set(reply.body.data.vectors.map((v: number[]) => v.join())).size).toBe(3);
      for (const vector of reply.body.data.vectors) expect(length(vector)).toBeCloseTo(1, 12);
      const other = await server.post(embed({ model: 'text-embedding-3-small', input: input[0], dimensions: 16 }));
      expect(other.body.data.vectors[0]).not.toEqual(reply.body.data.vectors[0]);
    });

    it('records the input tokens as usage, priced by the cost of ai.embed', async () => {
      const key = (await server.key({ scopes: ['ai:embed', 'usage:read'], entities: ['embedder'] })).secret;
      const headers = { authorization: `Bearer ${key}`, 'x-entity-id': 'embedder' };
      const reply = await server.post(embed({ model: 'm', input: ['one two three', 'four'] }), { headers });
      expect(reply.body.data.tokens).toEqual({ input: 4 });
      let records: any[] = [];
      await expect
        .poll(async () => {
          records = (await server.post({ face: 'usage', action: 'events', payload: { filter: { face: ['ai'] } } }, { headers })).body.data.items;
          return records.length;
        })
        .toBe(1);
      expect(records[0]).toMatchObject({ face: 'ai', action: 'embed', status: 200, units: { inputTokens: 4 } });
      expect(new Decimal(records[0].cost).equals(new Decimal('0.0001').plus(new Decimal('0.00000002').times(4)))).toBe(true);
    });

    it.each([
      ['an empty list', { model: 'm', input: [] }, '/payload/input'],
      ['an empty text', { model: 'm', input: '' }, '/payload/input'],
      ['an empty text in a list', { model: 'm', input: ['ok', ''] }, '/payload/input'],
      ['257 texts', { model: 'm', input: Array.from({ length: 257 }, () => 'x') }, '/payload/input'],
      ['a text of 32001 characters', { model: 'm', input: 'x'.repeat(32001) }, '/payload/input'],
      ['a number', { model: 'm', input: 42 }, '/payload/input'],
      ['no input', { model: 'm' }, '/payload'],
      ['0 dimensions', { model: 'm', input: 'x', dimensions: 0 }, '/payload/dimensions'],
      ['4097 dimensions', { model: 'm', input: 'x', dimensions: 4097 }, '/payload/dimensions'],
      ['an unknown field', { model: 'm', input: 'x', encodingFormat: 'base64' }, '/payload'],
    ])('refuses %s with 400 at the field', async (_, payload, param) => {
      const reply = await server.post(embed(payload));
      expect(reply.status).toBe(400);
      expect(reply.body.error).toMatchObject({ code: 'payload_invalid' });
      expect(reply.body.error.param.startsWith(param)).toBe(true);
    });

    it('lists the test model’s names', async () => {
      const reply = await server.post(models);
      expect(reply.status).toBe(200);
      expect(reply.body.data).toEqual({ items: TEST_MODELS });
      expect(reply.body.data.items.map((m: { id: string }) => m.id)).toEqual(['gpt-4o-mini', 'gpt-4o', 'text-embedding-3-small', 'text-embedding-3-large']);
    });
  });

  describe('live mode', () => {
    it('answers 503 provider_unavailable without a provider, for embed and models', async () => {
      const key = (await unconfigured.key({ mode: 'live' })).secret;
      for (const call of [embed({ model: 'embed', input: 'x' }), models]) {
        const reply = await unconfigured.post(call, as(key));
        expect(reply.status).toBe(503);
        expect(reply.body.error).toMatchObject({ type: 'provider_error', code: 'provider_unavailable' });
        expect(reply.body.error.message).toContain('AI_BASE_URL');
      }
    });

    it('embeds through the provider under the mapped model name', async () => {
      const input = ['The food was delicious.', 'The service was slow.'];
      const reply = await server.post(embed({ model: 'embed', input, dimensions: 4 }), as(live));
      expect(reply.status).toBe(200);
      expect(reply.body.data).toEqual({ model: 'embed', vectors: input.map((text) => fakeVector(text, 4)), tokens: { input: fakeTokens(input) } });
      expect(fake.requests.map((r) => r.body)).toEqual([{ model: 'text-embedding-3-small', input, encoding_format: 'float', dimensions: 4 }]);
    });

    it('passes provider errors on as ai.generate does', async () => {
      const unknown = await server.post(embed({ model: 'text-embedding-4', input: 'x' }), as(live));
      expect(unknown.status).toBe(400);
      expect(unknown.body.error).toMatchObject({ code: 'model_not_available', details: { model: 'text-embedding-4', upstreamStatus: 404 } });

      fake.override = (res) => openAiError(res, 429, 'Rate limit reached.', 'requests', 'rate_limit_exceeded', { 'retry-after': '2' });
      const busy = await server.post(embed({ model: 'embed', input: 'x' }), as(live));
      expect(busy.status).toBe(503);
      expect(busy.body.error).toMatchObject({ code: 'provider_unavailable', details: { upstreamStatus: 429 } });
      expect(busy.headers.get('retry-after')).toBe('2');

      fake.override = (res) => openAiError(res, 500, 'The server had an error.', 'server_error', null);
      const failed = await server.post(embed({ model: 'embed', input: 'x' }), as(live));
      expect(failed.status).toBe(502);
      expect(failed.body.error).toMatchObject({ code: 'provider_failed', details: { upstreamStatus: 500, upstreamMessage: 'The server had an error.' } });
    });

    it('answers 504 when the provider is slower than the call’s time-out', async () => {
      fake.override = () => {}; // never answers
      const reply = await server.post({ ...embed({ model: 'embed', input: 'x' }), options: { timeout: 200 } }, as(live));
      expect(reply.status).toBe(504);
      expect(reply.body.error).toMatchObject({ code: 'timeout' });
    });

    it('lists the names of AI_MODEL_MAP with the provider model each is sent as', async () => {
      const reply = await server.post(models, as(live));
      expect(reply.status).toBe(200);
      expect(reply.body.data).toEqual({
        items: [
          { id: 'embed', providerModel: 'text-embedding-3-small' },
          { id: 'fast', providerModel: 'gpt-4o-mini' },
        ],
      });
    });
  });

  describe('scopes', () => {
    it('asks for ai:embed to embed and ai:read to list models', async () => {
      const generateOnly = (await server.key({ scopes: ['ai:generate'] })).secret;
      const embedOnly = (await server.key({ scopes: ['ai:embed'] })).secret;
      const readOnly = (await server.key({ scopes: ['ai:read'] })).secret;
      const call = embed({ model: 'm', input: 'x' });

      const refusals = [
        [await server.post(call, as(generateOnly)), 'ai:embed'],
        [await server.post(models, as(generateOnly)), 'ai:read'],
        [await server.post(models, as(embedOnly)), 'ai:read'],
        [await server.post(call, as(readOnly)), 'ai:embed'],
      ] as const;
      for (const [reply, scope] of refusals) {
        expect(reply.status).toBe(403);
        expect(reply.body.error).toMatchObject({ code: 'insufficient_scope', details: { requiredScope: scope } });
      }
      expect((await server.post(call, as(embedOnly))).status).toBe(200);
      expect((await server.post(models, as(readOnly))).status).toBe(200);
    });
  });
});
