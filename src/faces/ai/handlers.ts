/**
 * The `ai` face. Test keys get the built-in deterministic model for every model name; live keys get the
 * configured OpenAI-compatible provider, or 503 when none is configured. Asked for a stream, a generation
 * reaches the caller piece by piece as the model produces it.
 */
import type { AiHandlers } from '../../../generated/server/types.js';
import type { HandlerContext } from '../../core/context.js';
import { ApiError } from '../../core/errors.js';

export const handlers: AiHandlers = {
  async generate(payload, ctx) {
    const model = forMode(ctx, ctx.providers.ai);
    const streamed = ctx.stream.active;
    const result = await model.generate({
      model: payload.model,
      prompt: payload.prompt,
      input: payload.input,
      maxTokens: payload.maxTokens,
      // Versions before 2026-09-01 send `temperature` at the top level.
      temperature: payload.sampling?.temperature ?? payload.temperature,
      topP: payload.sampling?.topP,
      // Read only by a model that can be cut short (a live provider, a stream): the call's abort machinery
      // is made on first use.
      get signal() {
        return ctx.signal;
      },
      ...(streamed ? { onDelta: (text: string) => ctx.stream.delta(text) } : {}),
    });
    ctx.reportUnits({ inputTokens: result.tokens.input, outputTokens: result.tokens.output });
    ctx.emit('ai.generate.completed', { model: result.model, tokens: result.tokens, streamed });
    return result;
  },

  async embed(payload, ctx) {
    const model = forMode(ctx, ctx.providers.embeddings);
    const result = await model.embed({
      model: payload.model,
      input: typeof payload.input === 'string' ? [payload.input] : payload.input,
      dimensions: payload.dimensions,
      // Read only by a live provider, as for generate.
      get signal() {
        return ctx.signal;
      },
    });
    ctx.reportUnits({ inputTokens: result.tokens.input });
    return result;
  },

  async models(_payload, ctx) {
    return { items: [...forMode(ctx, ctx.settings.aiModels)] };
  },
};

/** The test backend for test keys; the live one for live keys, or 503 when no provider is configured. */
function forMode<T>(ctx: HandlerContext, backends: { test: T; live?: T }): T {
  const backend = ctx.mode === 'test' ? backends.test : backends.live;
  if (!backend) throw new ApiError('provider_unavailable', 'No live model provider is configured: set AI_BASE_URL (and AI_API_KEY).');
  return backend;
}
