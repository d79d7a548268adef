/**
 * The HTTP side of every OpenAI-compatible endpoint this server calls (chat completions, embeddings): one
 * JSON POST under the caller's signal and an optional time-out, and upstream failures turned into the API's
 * provider errors: 503 when trying again later may help (unreachable, rate-limited, overloaded, too slow),
 * 400 `model_not_available` for a model the provider does not have, 502 when the provider answered wrongly.
 */
import { ApiError } from '../core/errors.js';

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

/** One call to an endpoint: the model under its public name (for the errors) and the caller's signal. */
export interface UpstreamCall {
  model: string;
  signal: AbortSignal;
}

/** A successful (2xx) answer whose body is still to be read. */
export interface UpstreamReply {
  response: Response;
  /** The whole body as text; a failure while reading it is mapped as a failed request is. */
  text(): Promise<string>;
  /** Maps a failure met while reading the body piece by piece (a stream) as a failed request is. */
  failed(error: unknown): unknown;
}

const MAX_UPSTREAM_MESSAGE = 500;

/**
 * A function that POSTs a JSON body to `{baseUrl}/{path}` and resolves to the provider's 2xx answer. It
 * rejects with an ApiError for everything else, or with the caller's abort reason, untouched, when the
 * caller gave up (then nothing is sent if it had given up already).
 */
export function openAiEndpoint(options: OpenAiCompatibleOptions, path: string): (body: unknown, call: UpstreamCall) => Promise<UpstreamReply> {
  const endpoint = `${options.baseUrl.replace(/\/+$/, '')}/${path}`;
  const fetchImpl = options.fetch ?? fetch;
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (options.apiKey) headers.Authorization = `Bearer ${options.apiKey}`;

  return async (body, call) => {
    call.signal.throwIfAborted();
    const timeout = options.timeoutMs === undefined ? undefined : AbortSignal.timeout(options.timeoutMs);
    const signal = timeout ? AbortSignal.any([call.signal, timeout]) : call.signal;
    // Node's timer holds a time-out signal weakly, and a signal made by AbortSignal.any is held weakly by its
    // sources: held by nothing else, either could be collected before the time-out fires, and the call would
    // hang. `failed` holds both for as long as the call can still fail.
    const failed = (error: unknown) => unreachable(error, call.signal, timeout, signal, options.timeoutMs);
    let response: Response;
    try {
      response = await fetchImpl(endpoint, { method: 'POST', headers, body: JSON.stringify(body), signal });
    } catch (error) {
      throw failed(error);
    }
    const text = () => response.text().catch((error: unknown) => Promise.reject(failed(error)));
    if (!response.ok) throw upstreamError(call.model, response, await text(), options.apiKey);
    return { response, text, failed };
  };
}

/** The provider's name for a public model name; own properties only, so `toString` is not "mapped" to a function. */
export function providerModel(modelMap: Record<string, string>, model: string): string {
  return Object.hasOwn(modelMap, model) ? modelMap[model]! : model;
}

/** A 2xx answer that is not what the endpoint promises (`what`: "a chat completion", "an embedding list"). */
export function unexpectedAnswer(what: string, upstreamStatus: number): ApiError {
  return new ApiError('provider_failed', `The model provider answered with something that is not ${what}.`, { details: { upstreamStatus } });
}

/** What a failed fetch or body read becomes: the caller's own abort passes through untouched. */
function unreachable(error: unknown, callerSignal: AbortSignal, timeout: AbortSignal | undefined, signal: AbortSignal, timeoutMs: number | undefined): unknown {
  if (callerSignal.aborted) return callerSignal.reason;
  // The request's signal gave up with the time-out's reason.
  if (timeout?.aborted) {
    return new ApiError('provider_unavailable', `The model provider did not answer within ${timeoutMs} ms.`, {
      details: { timeoutMs },
      cause: signal.reason,
    });
  }
  // undici reports DNS and connection failures as TypeError('fetch failed') with the system error as cause.
  const reason = (error as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  return new ApiError('provider_unavailable', 'The model provider could not be reached.', {
    ...(typeof reason === 'string' ? { details: { reason } } : {}),
    cause: error,
  });
}

function upstreamError(model: string, response: Response, text: string, apiKey: string | undefined): ApiError {
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
    return new ApiError('model_not_available', `The model "${model}" is not available from the model provider.`, {
      details: { model, upstreamStatus },
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
export function redact(message: string, apiKey: string | undefined): string {
  let clean = apiKey ? message.replaceAll(apiKey, '[redacted]') : message;
  clean = clean.replace(/\bsk-[\w*-]{3,}/g, '[redacted]');
  const chars = Array.from(clean);
  return chars.length > MAX_UPSTREAM_MESSAGE ? `${chars.slice(0, MAX_UPSTREAM_MESSAGE - 1).join('')}…` : clean;
}

/** A token count as providers report them: a whole number, not negative. */
export function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

/** The JSON object or array in `text`, or undefined when it is not one. */
export function parseJson(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}
