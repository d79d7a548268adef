/**
 * The test model's embeddings: the same model and text give the same vector, every vector has unit length,
 * different texts and models give different vectors, `dimensions` shortens a vector to its start, and the
 * token count is the test model's.
 */
import { describe, expect, it } from 'vitest';
import type { EmbeddingRequest } from '../../src/providers/embedding-model.js';
import { testDimensions, testEmbeddingModel, testVector } from '../../src/providers/test-embeddings.js';
import { countTokens } from '../../src/providers/test-model.js';

const request = (overrides: Partial<EmbeddingRequest> = {}): EmbeddingRequest => ({
  model: 'text-embedding-3-small',
  input: ['The food was delicious.'],
  signal: new AbortController().signal,
  ...overrides,
});

const length = (vector: number[]) => Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
const dot = (a: number[], b: number[]) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

describe('testEmbeddingModel', () => {
  it('gives the same vectors to the same model and texts, every time', async () => {
    const first = await testEmbeddingModel.embed(request({ input: ['one', 'two'] }));
    const again = await testEmbeddingModel.embed(request({ input: ['one', 'two'], signal: new AbortController().signal }));
    expect(again).toEqual(first);
    // A text's vector does not depend on the texts beside it or on its place.
    const alone = await testEmbeddingModel.embed(request({ input: ['two'] }));
    expect(alone.vectors[0]).toEqual(first.vectors[1]);
  });

  it('answers one vector per text, in order, 1536 numbers by default and 3072 for text-embedding-3-large', async () => {
    const small = await testEmbeddingModel.embed(request({ input: ['a', 'b', 'c'] }));
    expect(small.model).toBe('text-embedding-3-small');
    expect(small.vectors).toHaveLength(3);
    for (const vector of small.vectors) expect(vector).toHaveLength(1536);
    expect(small.vectors[2]).toEqual(testVector('text-embedding-3-small', 'c', 1536));
    const large = await testEmbeddingModel.embed(request({ model: 'text-embedding-3-large' }));
    expect(large.vectors[0]).toHaveLength(3072);
    expect((await testEmbeddingModel.embed(request({ model: 'any-name-at-all' }))).vectors[0]).toHaveLength(1536);
    expect([testDimensions('text-embedding-3-small'), testDimensions('text-embedding-3-large'), testDimensions('fast')]).toEqual([1536, 3072, 1536]);
  });

  it('gives vectors of unit length, of finite numbers', async () => {
    const texts = Array.from({ length: 50 }, (_, i) => `Text number ${i}`);
    for (const dimensions of [1, 2, 8, 256, 1536]) {
      const { vectors } = await testEmbeddingModel.embed(request({ input: texts, dimensions }));
      for (const vector of vectors) {
        expect(vector).toHaveLength(dimensions);
        expect(vector.every(Number.isFinite)).toBe(true);
        expect(length(vector)).toBeCloseTo(1, 12);
      }
    }
  });

  it('gives different texts and models unrelated vectors', async () => {
    const texts = Array.from({ length: 50 }, (_, i) => `Text number ${i}`);
    const { vectors } = await testEmbeddingModel.embed(request({ input: texts }));
    expect(new Set(vectors.map((v) => v.join())).size).toBe(50);
    // Random directions in 1536 dimensions are nearly orthogonal: a cosine far from 0 would mean a pattern.
    for (let i = 1; i < vectors.length; i++) expect(Math.abs(dot(vectors[0]!, vectors[i]!))).toBeLessThan(0.2);
    const other = await testEmbeddingModel.embed(request({ model: 'text-embedding-3-large', dimensions: 1536, input: [texts[0]!] }));
    expect(Math.abs(dot(vectors[0]!, other.vectors[0]!))).toBeLessThan(0.2);
    const nearTexts = await testEmbeddingModel.embed(request({ input: ['hello', 'Hello', 'hello '] }));
    expect(new Set(nearTexts.vectors.map((v) => v.join())).size).toBe(3);
  });

  it('shortens a vector to the start of the full one, scaled to unit length again', async () => {
    const full = testVector('text-embedding-3-small', 'Shorter', 1536);
    const short = testVector('text-embedding-3-small', 'Shorter', 64);
    const start = full.slice(0, 64);
    const scale = length(start);
    short.forEach((x, i) => expect(x).toBeCloseTo(start[i]! / scale, 12));
  });

  it('counts the texts with the test model tokenizer', async () => {
    const input = ['Hello, world!', "don't stop", 'x'];
    const result = await testEmbeddingModel.embed(request({ input }));
    expect(result.tokens.input).toBe(4 + 4 + 1);
    expect(result.tokens.input).toBe(input.reduce((sum, text) => sum + countTokens(text), 0));
  });

  it('never reads the signal (the call makes its abort machinery only when read)', async () => {
    const untouchable = request();
    Object.defineProperty(untouchable, 'signal', {
      get() {
        throw new Error('read the signal');
      },
    });
    expect((await testEmbeddingModel.embed(untouchable)).vectors).toHaveLength(1);
  });
});
