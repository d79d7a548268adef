/**
 * The `ai` face. Test keys get the built-in deterministic model for every model name; live keys get the
 * configured OpenAI-compatible provider, or 503 when none is configured. Asked for a stream, a generation
 * reaches the caller piece by piece as the model produces it.
 */
import type { AiHandlers } from '../../../generated/server/types.js';
import type { HandlerContext } from '../../core/context.js';
import { ApiError } from '../../core/errors.js';
import type { EmbeddingRequest } from '../../providers/embedding-model.js';
import type { TextGenerationRequest } from '../../providers/text-model.js';

export const handlers: AiHandlers = {
  async generate(payload, ctx) {
    const model = forMode(ctx, ctx.providers.ai);
    const streamed = ctx.stream.active;
    const result = await model.generate(
      withCallSignal<TextGenerationRequest>(ctx, {
        model: payload.model,
        prompt: payload.prompt,
        input: payload.input,
        maxTokens: payload.maxTokens,
        // Versions before 2026-09-01 send `temperature` at the top level.
        temperature: payload.sampling?.temperature ?? payload.temperature,
        topP: payload.sampling?.topP,
        ...(streamed ? { onDelta: (text: string) => ctx.stream.delta(text) } : {}),
      }),
    );
    ctx.reportUnits({ inputTokens: result.tokens.input, outputTokens: result.tokens.output });
    ctx.emit('ai.generate.completed', { model: result.model, tokens: result.tokens, streamed });
    return result;
  },

  async embed(payload, ctx) {
    const model = forMode(ctx, ctx.providers.embeddings);
    const result = await model.embed(
      withCallSignal<EmbeddingRequest>(ctx, {
        model: payload.model,
        input: typeof payload.input === 'string' ? [payload.input] : payload.input,
        dimensions: payload.dimensions,
      }),
    );
    ctx.reportUnits({ inputTokens: result.tokens.input });
    return result;
  },

  async models(_payload, ctx) {
    return { items: [...forMode(ctx, ctx.settings.aiModels)] };
  },
};

/**
 * A request to a model whose `signal` is the call's, read only by a model that can be cut short (a live
 * provider, a stream): the call's abort machinery is made on first use. The getter is the class's, shared:
 * V8 makes an object literal with a getter of its own in dictionary mode, by a slower path, on every call,
 * and on a busy server five times as much then outlived each young collection (docs/benchmarks.md).
 */
class CallSignal {
  readonly #ctx: HandlerContext;

  constructor(ctx: HandlerContext) {
    this.#ctx = ctx;
  }

  get signal(): AbortSignal {
    return this.#ctx.signal;
  }
}

/** A model's request of `fields`, whose signal is the call's; the request type names the fields it may have. */
const withCallSignal = <R extends { signal: AbortSignal }>(ctx: HandlerContext, fields: Omit<R, 'signal'>): Omit<R, 'signal'> & CallSignal =>
  Object.assign(new CallSignal(ctx), fields);

/** The test backend for test keys; the live one for live keys, or 503 when no provider is configured. */
function forMode<T>(ctx: HandlerContext, backends: { test: T; live?: T }): T {
  const backend = ctx.mode === 'test' ? backends.test : backends.live;
  if (!backend) throw new ApiError('provider_unavailable', 'No live model provider is configured: set AI_BASE_URL (and AI_API_KEY).');
  return backend;
}
