/**
 * A `TextModel` for any server that speaks the OpenAI chat-completions wire format (OpenAI itself, Azure
 * OpenAI proxies, vLLM, Ollama, LiteLLM, ...), as one JSON completion or, when the caller streams, as the
 * provider's own server-sent events. The HTTP call and its errors are openai-http.ts's.
 */
import { createParser } from 'eventsource-parser';
import { ApiError } from '../core/errors.js';
import { isCount, openAiEndpoint, parseJson, providerModel, redact, unexpectedAnswer, type OpenAiCompatibleOptions } from './openai-http.js';
import type { TextGenerationRequest, TextGenerationResult, TextModel } from './text-model.js';

export type { OpenAiCompatibleOptions } from './openai-http.js';

/** Creates a model that calls `POST {baseUrl}/chat/completions`. */
export function openAiCompatibleModel(options: OpenAiCompatibleOptions): TextModel {
  const post = openAiEndpoint(options, 'chat/completions');
  return {
    async generate(request) {
      const reply = await post(wireBody(request, options.modelMap), request);
      const result = request.onDelta
        ? await readStream(reply.response, request, reply.failed, options.apiKey)
        : parseCompletion(await reply.text(), request.model);
      if (!result) throw unexpectedAnswer(`a chat completion${request.onDelta ? ' stream' : ''}`, reply.response.status);
      return result;
    },
  };
}

/**
 * Reads a streamed chat completion (`text/event-stream` of `chat.completion.chunk`s, ended by `[DONE]`),
 * handing each piece of content to `onDelta`. The token counts come from the last chunk, which the request
 * asks for with `stream_options.include_usage`. Undefined when the stream is not a whole completion.
 */
async function readStream(
  response: Response,
  request: TextGenerationRequest,
  failed: (error: unknown) => unknown,
  apiKey: string | undefined,
): Promise<TextGenerationResult | undefined> {
  let text = '';
  let usage: { prompt_tokens?: unknown; completion_tokens?: unknown } | undefined;
  let done = false;
  let upstream: ApiError | undefined;
  // The caller's pace: a delta that the client cannot take yet returns a promise, awaited before reading on,
  // so a slow reader slows the upstream stream instead of filling the server's memory.
  let slowReader: Promise<void> | undefined;
  const parser = createParser({
    onEvent(event) {
      if (done || upstream) return;
      if (event.data === '[DONE]') {
        done = true;
        return;
      }
      const chunk = parseJson(event.data) as
        | { choices?: Array<{ delta?: { content?: unknown } }>; usage?: typeof usage; error?: { message?: unknown } }
        | undefined;
      if (chunk?.error) {
        const message = chunk.error.message;
        upstream = new ApiError('provider_failed', 'The model provider failed in the middle of its answer.', {
          details: typeof message === 'string' ? { upstreamMessage: redact(message, apiKey) } : {},
        });
        return;
      }
      const content = Array.isArray(chunk?.choices) ? chunk.choices[0]?.delta?.content : undefined;
      if (typeof content === 'string' && content !== '') {
        text += content;
        slowReader = request.onDelta!(content) || slowReader;
      }
      if (chunk?.usage) usage = chunk.usage;
    },
  });
  const decoder = new TextDecoder();
  try {
    for await (const bytes of response.body ?? []) {
      parser.feed(decoder.decode(bytes as Uint8Array, { stream: true }));
      if (upstream) break;
      if (slowReader) {
        await slowReader;
        slowReader = undefined;
      }
    }
  } catch (error) {
    throw failed(error);
  }
  if (upstream) throw upstream;
  parser.feed(decoder.decode());
  const input = usage?.prompt_tokens;
  const output = usage?.completion_tokens;
  if (!done || !isCount(input) || !isCount(output)) return undefined;
  return { text, model: request.model, tokens: { input, output } };
}

function wireBody(request: TextGenerationRequest, modelMap: Record<string, string>) {
  return {
    model: providerModel(modelMap, request.model),
    messages: [{ role: 'user', content: request.input ? `${request.prompt}\n\n${request.input}` : request.prompt }],
    ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.topP !== undefined ? { top_p: request.topP } : {}),
    ...(request.onDelta ? { stream: true, stream_options: { include_usage: true } } : {}),
  };
}

function parseCompletion(text: string, model: string): TextGenerationResult | undefined {
  const body = parseJson(text) as
    | { choices?: Array<{ message?: { content?: unknown } }>; usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } }
    | undefined;
  const content = Array.isArray(body?.choices) ? body.choices[0]?.message?.content : undefined;
  const input = body?.usage?.prompt_tokens;
  const output = body?.usage?.completion_tokens;
  if (typeof content !== 'string' || !isCount(input) || !isCount(output)) return undefined;
  return { text: content, model, tokens: { input, output } };
}
