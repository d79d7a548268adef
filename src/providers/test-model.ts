/**
 * The built-in test model that test-mode keys get for every model name: free, offline and deterministic.
 * Its answer is pseudo-text drawn from a small vocabulary, seeded by a hash of the request, so tests and
 * demos can rely on "same request, same answer" while different requests still get different answers.
 */
import { createHash } from 'node:crypto';
import { setImmediate } from 'node:timers/promises';
import type { TextGenerationRequest, TextModel } from './text-model.js';

/** What decides the test model's answer; temperature and topP deliberately do not, to stay deterministic. */
export type TestTokensRequest = Pick<TextGenerationRequest, 'model' | 'prompt' | 'input' | 'maxTokens'>;

// 64 words, so one hash byte picks a word without modulo bias.
const VOCABULARY = [
  'the', 'a', 'quick', 'quiet', 'bright', 'small', 'large', 'early',
  'late', 'calm', 'clear', 'simple', 'steady', 'gentle', 'open', 'warm',
  'river', 'mountain', 'garden', 'window', 'letter', 'signal', 'answer', 'question',
  'morning', 'evening', 'city', 'forest', 'bridge', 'market', 'story', 'journey',
  'moves', 'holds', 'finds', 'keeps', 'brings', 'shows', 'makes', 'follows',
  'builds', 'reads', 'writes', 'opens', 'turns', 'meets', 'sends', 'waits',
  'near', 'over', 'under', 'beyond', 'through', 'across', 'before', 'after',
  'and', 'with', 'for', 'from', 'into', 'again', 'today', 'slowly',
] as const;

const DEFAULT_MAX_TOKENS = 16;
const MIN_WORDS = 4;
const MAX_WORDS = 16;

// Runs of letters/digits, or runs of other non-space characters: crude, but stable and easy to predict.
const TOKEN = /[\p{L}\p{N}]+|[^\s\p{L}\p{N}]+/gu;

/** Counts tokens the way the test model does: each run of letters and digits, and each run of punctuation. */
export function countTokens(text: string): number {
  return text.match(TOKEN)?.length ?? 0;
}

/** The test model's seed: 32 bytes that depend on `parts` alone, so equal requests get equal answers. */
export function testSeed(parts: readonly string[]): Buffer {
  return createHash('sha256').update(JSON.stringify(parts)).digest();
}

/**
 * The test model's answer, one token per piece: the first word, then each further word with its leading
 * space, then a closing period. Joined, the pieces are the answer's text. An answer that would exceed
 * `maxTokens` (default 16) is cut off there without its period, as a real model stops at its limit.
 */
export function testTokens(request: TestTokensRequest): string[] {
  const seed = testSeed([request.model, request.prompt, request.input ?? '']);
  const wordCount = MIN_WORDS + (seed[0]! % (MAX_WORDS - MIN_WORDS + 1));
  const budget = request.maxTokens ?? DEFAULT_MAX_TOKENS;
  const pieces: string[] = [];
  for (let i = 0; i < wordCount && pieces.length < budget; i++) {
    const word = VOCABULARY[seed[i + 1]! % VOCABULARY.length]!;
    pieces.push(i === 0 ? word[0]!.toUpperCase() + word.slice(1) : ` ${word}`);
  }
  if (pieces.length === wordCount && pieces.length < budget) pieces.push('.');
  return pieces;
}

/**
 * The deterministic test model: the same request always gets the same answer, whatever the model name.
 * Streaming, it hands over one token at a time, yielding to the event loop between tokens as a real model's
 * stream would, and stops as soon as the call is aborted.
 */
export const testTextModel: TextModel = {
  async generate(request) {
    const pieces = testTokens(request);
    if (request.onDelta) {
      // Only a stream takes long enough to be cut short; an answer in one piece is computed at once.
      request.signal.throwIfAborted();
      for (const piece of pieces) {
        await setImmediate();
        request.signal.throwIfAborted();
        await request.onDelta(piece);
      }
    }
    return {
      text: pieces.join(''),
      model: request.model,
      tokens: { input: countTokens(request.prompt) + countTokens(request.input ?? ''), output: pieces.length },
    };
  },
};
