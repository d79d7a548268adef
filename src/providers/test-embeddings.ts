/**
 * The test model's embeddings, which test-mode keys get for every model name: free, offline and
 * deterministic. A text's vector is drawn from the test model's seed of (model, text), stretched to any
 * length with SHAKE-256 and scaled to unit length, as OpenAI's are: the same model and text always give the
 * same vector, and different texts (or models) give unrelated ones. As with OpenAI's text-embedding-3
 * models, fewer `dimensions` give the start of the full vector, scaled to unit length again.
 */
import { createHash } from 'node:crypto';
import type { EmbeddingModel } from './embedding-model.js';
import { countTokens, testSeed } from './test-model.js';

/** The length of a vector when the request names none: OpenAI's for its models, 1536 for any other name. */
export function testDimensions(model: string): number {
  return model === 'text-embedding-3-large' ? 3072 : 1536;
}

/** The test model's vector for one text: `dimensions` numbers whose squares sum to 1. */
export function testVector(model: string, text: string, dimensions: number): number[] {
  const bytes = createHash('shake256', { outputLength: dimensions * 4 })
    .update(testSeed(['embed', model, text]))
    .digest();
  const vector = new Array<number>(dimensions);
  let squares = 0;
  for (let i = 0; i < dimensions; i++) {
    // Uniform in [-1, 1): different texts point in unrelated directions, which is all tests need.
    const value = bytes.readUInt32BE(i * 4) / 2 ** 31 - 1;
    vector[i] = value;
    squares += value * value;
  }
  // Every component would have to be exactly 0 for the length to be 0: one chance in 2^(32 × dimensions).
  const length = Math.sqrt(squares);
  return vector.map((value) => value / length);
}

/**
 * The deterministic embedding model. It answers at once, so it never reads the signal (the call makes its
 * abort machinery only when the signal is read).
 */
export const testEmbeddingModel: EmbeddingModel = {
  async embed(request) {
    const dimensions = request.dimensions ?? testDimensions(request.model);
    return {
      model: request.model,
      vectors: request.input.map((text) => testVector(request.model, text, dimensions)),
      tokens: { input: request.input.reduce((sum, text) => sum + countTokens(text), 0) },
    };
  },
};
