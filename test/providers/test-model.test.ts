/**
 * The built-in test model: deterministic answers, the maxTokens bound, token counts, the token-by-token
 * pieces that streaming will send, and the abort signal.
 */
import { describe, expect, it } from 'vitest';
import { countTokens, testTextModel, testTokens } from '../../src/providers/test-model.js';
import type { TextGenerationRequest } from '../../src/providers/text-model.js';

const request = (overrides: Partial<TextGenerationRequest> = {}): TextGenerationRequest => ({
  model: 'gpt-4o-mini',
  prompt: 'Classify the sentiment as positive or negative.',
  input: 'I love this product.',
  signal: new AbortController().signal,
  ...overrides,
});

const prompts = Array.from({ length: 50 }, (_, i) => `Prompt number ${i}`);

describe('countTokens', () => {
  it.each([
    ['', 0],
    ['   \n\t ', 0],
    ['hello', 1],
    ['Hello, world!', 4],
    ["don't", 3],
    ['Wait...', 2],
    ['über 42 straße', 3],
    ['a  b\n\nc', 3],
  ])('counts %j as %i', (text, expected) => {
    expect(countTokens(text)).toBe(expected);
  });
});

describe('testTextModel', () => {
  it('gives the same answer to the same request, every time', async () => {
    const first = await testTextModel.generate(request());
    const again = await testTextModel.generate(request({ signal: new AbortController().signal }));
    expect(again).toEqual(first);
    expect(first.text.length).toBeGreaterThan(0);
  });

  it('gives different answers to different prompts, inputs and models', async () => {
    const texts = await Promise.all(prompts.map(async (prompt) => (await testTextModel.generate(request({ prompt }))).text));
    expect(new Set(texts).size).toBeGreaterThan(45);
    const base = (await testTextModel.generate(request())).text;
    expect((await testTextModel.generate(request({ input: 'I hate this product.' }))).text).not.toBe(base);
    expect((await testTextModel.generate(request({ model: 'claude-sonnet' }))).text).not.toBe(base);
  });

  it('does not tell an empty input from a missing one', async () => {
    expect(await testTextModel.generate(request({ input: '' }))).toEqual(await testTextModel.generate(request({ input: undefined })));
  });

  it('echoes the requested model, whatever its name', async () => {
    for (const model of ['gpt-4o-mini', 'fast', 'no-such-model']) {
      expect((await testTextModel.generate(request({ model }))).model).toBe(model);
    }
  });

  it('answers in sentence-like text from its vocabulary', async () => {
    for (const prompt of prompts) {
      const { text } = await testTextModel.generate(request({ prompt, maxTokens: 100 }));
      expect(text).toMatch(/^[A-Z][a-z]*( [a-z]+)*\.$/);
    }
  });

  it('counts the prompt and input tokens', async () => {
    const result = await testTextModel.generate(request());
    // "Classify the sentiment as positive or negative ." + "I love this product ."
    expect(result.tokens.input).toBe(8 + 5);
    expect((await testTextModel.generate(request({ input: undefined }))).tokens.input).toBe(8);
  });

  it('counts the output tokens of its answer', async () => {
    for (const prompt of prompts) {
      const result = await testTextModel.generate(request({ prompt }));
      expect(result.tokens.output).toBe(countTokens(result.text));
      expect(result.tokens.output).toBeGreaterThan(0);
    }
  });

  it('never writes more than maxTokens tokens, 16 by default', async () => {
    for (const prompt of prompts) {
      expect((await testTextModel.generate(request({ prompt }))).tokens.output).toBeLessThanOrEqual(16);
      for (const maxTokens of [1, 2, 3, 5, 8, 13]) {
        const result = await testTextModel.generate(request({ prompt, maxTokens }));
        expect(result.tokens.output).toBeLessThanOrEqual(maxTokens);
        expect(countTokens(result.text)).toBe(result.tokens.output);
      }
    }
  });

  it('cuts a long answer off at maxTokens, keeping its beginning', async () => {
    const full = await testTextModel.generate(request({ maxTokens: 1000 }));
    expect(full.tokens.output).toBeGreaterThan(3);
    const cut = await testTextModel.generate(request({ maxTokens: 3 }));
    expect(cut.tokens.output).toBe(3);
    expect(full.text.startsWith(cut.text)).toBe(true);
    expect(cut.text.endsWith('.')).toBe(false);
  });

  it('lets a larger maxTokens change nothing once the answer fits', async () => {
    const fits = await testTextModel.generate(request({ maxTokens: 100 }));
    expect(await testTextModel.generate(request({ maxTokens: 32000 }))).toEqual(fits);
  });

  it('streaming, rejects with the reason of an already aborted signal and streams nothing', async () => {
    const controller = new AbortController();
    const reason = new Error('caller gave up');
    controller.abort(reason);
    const pieces: string[] = [];
    await expect(testTextModel.generate(request({ signal: controller.signal, onDelta: (p) => void pieces.push(p) }))).rejects.toBe(reason);
    expect(pieces).toEqual([]);
  });

  it('streaming, rejects with an AbortError when aborted without a reason', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(testTextModel.generate(request({ signal: controller.signal, onDelta: () => {} }))).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('answering in one piece, never reads the signal (the call makes its abort machinery only when read)', async () => {
    const untouchable = request({});
    Object.defineProperty(untouchable, 'signal', {
      get() {
        throw new Error('read the signal');
      },
    });
    expect((await testTextModel.generate(untouchable)).text.length).toBeGreaterThan(0);
  });
});

describe('testTokens', () => {
  it('yields pieces that join into the answer, one token each', async () => {
    for (const prompt of prompts) {
      for (const maxTokens of [undefined, 1, 4, 100]) {
        const pieces = testTokens({ model: 'm', prompt, maxTokens });
        const result = await testTextModel.generate(request({ model: 'm', prompt, maxTokens, input: undefined }));
        expect(pieces.join('')).toBe(result.text);
        expect(pieces.length).toBe(result.tokens.output);
        for (const piece of pieces) expect(countTokens(piece)).toBe(1);
      }
    }
  });

  it('puts the space before each later word, so the pieces can be sent as they come', () => {
    const pieces = testTokens({ model: 'm', prompt: 'Say hello', maxTokens: 100 });
    expect(pieces[0]).toMatch(/^[A-Z][a-z]*$/);
    for (const piece of pieces.slice(1, -1)) expect(piece).toMatch(/^ [a-z]+$/);
    expect(pieces.at(-1)).toBe('.');
  });
});
