/**
 * A `TextModel` for any server that speaks the OpenAI chat-completions wire format (OpenAI itself, Azure
 * OpenAI proxies, vLLM, Ollama, LiteLLM, ...), as one JSON completion or, when the caller streams, as the
 * provider's own server-sent events. Upstream failures become the API's provider errors: 503 when trying
 * again later may help (unreachable, rate-limited, overloaded), 502 when the provider answered wrongly.
 */
import { createParser } from 'eventsource-parser';
import { ApiError } from '../runtime/errors.js';
import type { TextGenerationRequest, TextGenerationResult, TextModel } from './text-model.js';

export interface OpenAiCompatibleOptions {
  /** Base URL up to and including the version, e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  apiKey?: string;
  /** Public model name → provider model name; names not listed are sent unchanged. */
  modelMap: Record<string, string>;
  fetch?: typeof fetch;
  /**
   * Upper bound on one upstream call. Without it only the caller's signal (the call's own time-out)
   * bounds the call.
   */
  timeoutMs?: number;
}

const MAX_UPSTREAM_MESSAGE = 500;

/** Creates a model that calls `POST {baseUrl}/chat/completions`. */
export function openAiCompatibleModel(options: OpenAiCompatibleOptions): TextModel {
  const endpoint = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const fetchImpl = options.fetch ?? fetch;
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (options.apiKey) headers.Authorization = `Bearer ${options.apiKey}`;

  return {
    async generate(request) {
      request.signal.throwIfAborted();
      const signal =
        options.timeoutMs === undefined ? request.signal : AbortSignal.any([request.signal, AbortSignal.timeout(options.timeoutMs)]);
      const failed = (error: unknown) => unreachable(error, request.signal, options.timeoutMs);
      let response: Response;
      try {
        response = await fetchImpl(endpoint, { method: 'POST', headers, body: JSON.stringify(wireBody(request, options.modelMap)), signal });
      } catch (error) {
        throw failed(error);
      }
      const readText = () => response.text().catch((error: unknown) => Promise.reject(failed(error)));
      if (!response.ok) throw upstreamError(request, response, await readText(), options.apiKey);
      const result = request.onDelta ? await readStream(response, request, failed, options.apiKey) : parseCompletion(await readText(), request.model);
      if (!result) {
        throw new ApiError('provider_failed', `The model provider answered with something that is not a chat completion${request.onDelta ? ' stream' : ''}.`, {
          details: { upstreamStatus: response.status },
        });
      }
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
    // Own-property check, so a model named like an Object.prototype member is not "mapped" to a function.
    model: Object.hasOwn(modelMap, request.model) ? modelMap[request.model]! : request.model,
    messages: [{ role: 'user', content: request.input ? `${request.prompt}\n\n${request.input}` : request.prompt }],
    ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.topP !== undefined ? { top_p: request.topP } : {}),
    ...(request.onDelta ? { stream: true, stream_options: { include_usage: true } } : {}),
  };
}

/** What a failed fetch or body read becomes: the caller's own abort passes through untouched. */
function unreachable(error: unknown, callerSignal: AbortSignal, timeoutMs: number | undefined): unknown {
  if (callerSignal.aborted) return callerSignal.reason;
  if (error instanceof Error && error.name === 'TimeoutError') {
    return new ApiError('provider_unavailable', `The model provider did not answer within ${timeoutMs} ms.`, {
      details: { timeoutMs },
      cause: error,
    });
  }
  // undici reports DNS and connection failures as TypeError('fetch failed') with the system error as cause.
  const reason = (error as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  return new ApiError('provider_unavailable', 'The model provider could not be reached.', {
    ...(typeof reason === 'string' ? { details: { reason } } : {}),
    cause: error,
  });
}

function upstreamError(request: TextGenerationRequest, response: Response, text: string, apiKey: string | undefined): ApiError {
  const upstreamStatus = response.status;
  const body = parseJson(text) as { error?: { message?: unknown; code?: unknown }; message?: unknown } | undefined;
  if (upstreamStatus === 429 || upstreamStatus === 503) {
    const retryAfter = response.headers.get('retry-after');
    return new ApiError('provider_unavailable', `The model provider is busy (HTTP ${upstreamStatus}); try again later.`, {
      details: { upstreamStatus },
      ...(retryAfter && /^\d+$/.test(retryAfter) ? { headers: { 'Retry-After': retryAfter } } : {}),
    });
  }
  if (upstreamStatus === 404 && body?.error?.code === 'model_not_found') {
    return new ApiError('model_not_available', `The model "${request.model}" is not available from the model provider.`, {
      details: { model: request.model, upstreamStatus },
    });
  }
  // OpenAI nests the message under `error`; vLLM and some others put it at the top level.
  const message = body?.error?.message ?? body?.message;
  return new ApiError('provider_failed', `The model provider answered with HTTP ${upstreamStatus}.`, {
    details: { upstreamStatus, ...(typeof message === 'string' ? { upstreamMessage: redact(message, apiKey) } : {}) },
  });
}

/**
 * Upstream messages reach our callers, and a 401 from OpenAI quotes (part of) the key it was given: the key
 * and anything shaped like an OpenAI key are removed before the message is truncated.
 */
function redact(message: string, apiKey: string | undefined): string {
  let clean = apiKey ? message.replaceAll(apiKey, '[redacted]') : message;
  clean = clean.replace(/\bsk-[\w*-]{3,}/g, '[redacted]');
  const chars = Array.from(clean);
  return chars.length > MAX_UPSTREAM_MESSAGE ? `${chars.slice(0, MAX_UPSTREAM_MESSAGE - 1).join('')}…` : clean;
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

function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

function parseJson(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}
