/**
 * The OpenAI-compatible model against a real local HTTP server that speaks the chat-completions wire format
 * and checks requests the way OpenAI does, so no paid provider is needed. Also `createProviders`, which
 * wires the environment into that model.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createProviders, parseModelMap } from '../../src/providers/config.js';
import { openAiCompatibleModel } from '../../src/providers/openai-compatible.js';
import { testTextModel } from '../../src/providers/test-model.js';
import type { TextGenerationRequest, TextModel } from '../../src/providers/text-model.js';
import { ApiError } from '../../src/core/errors.js';
import { shippedStatus } from '../helpers/errors.js';
import { startServer } from '../helpers/server.js';
import { postStream } from '../helpers/sse.js';

const API_KEY = 'sk-test-0123456789abcdef';

/** A full collection now, without starting the process with --expose-gc. */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}
const KNOWN_MODELS = new Set(['gpt-4o-mini', 'gpt-4o', 'llama-3.1-8b']);

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: any;
}

/** How the fake answers a request that passed its checks; the default answers like OpenAI. */
type Behaviour = (res: ServerResponse, body: any) => void;

let server: Server;
let baseUrl: string;
let received: Received[];
let behaviour: Behaviour;

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

const openAiError = (res: ServerResponse, status: number, message: string, type: string, code: string | null, headers?: Record<string, string>) =>
  json(res, status, { error: { message, type, param: null, code } }, headers);

const completion = (res: ServerResponse, body: any, content = 'positive') =>
  json(res, 200, {
    id: 'chatcmpl-123',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: `${body.model}-2024-07-18`,
    choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: 'stop' }],
    usage: { prompt_tokens: 17, completion_tokens: 1, total_tokens: 18 },
    system_fingerprint: 'fp_test',
  });

/** Checks a request as OpenAI does before `behaviour` gets it. */
async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  let raw = '';
  for await (const chunk of req) raw += chunk;
  let body: any;
  try {
    body = JSON.parse(raw);
  } catch {
    body = undefined;
  }
  received.push({ method: req.method!, url: req.url!, headers: req.headers, body });
  if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
    return openAiError(res, 404, `Invalid URL (${req.method} ${req.url})`, 'invalid_request_error', null);
  }
  const auth = req.headers.authorization;
  if (auth !== `Bearer ${API_KEY}`) {
    // OpenAI quotes the key it got, masked; some compatible servers quote it whole. Neither may reach callers.
    const given = auth?.slice(7) ?? '';
    const quoted = given.startsWith('sk-') ? `${given.slice(0, 8)}${'*'.repeat(12)}${given.slice(-4)}` : given;
    const message = auth ? `Incorrect API key provided: ${quoted}. You can find your API key at https://platform.openai.com/account/api-keys.` : "You didn't provide an API key.";
    return openAiError(res, 401, message, 'invalid_request_error', auth ? 'invalid_api_key' : null);
  }
  if (!req.headers['content-type']?.startsWith('application/json') || body === undefined) {
    return openAiError(res, 400, 'We could not parse the JSON body of your request.', 'invalid_request_error', null);
  }
  const messagesOk =
    Array.isArray(body.messages) &&
    body.messages.length > 0 &&
    body.messages.every((m: any) => m.role === 'user' && typeof m.content === 'string');
  if (typeof body.model !== 'string' || !messagesOk) {
    return openAiError(res, 400, "Missing required parameter: 'messages'.", 'invalid_request_error', 'missing_required_parameter');
  }
  if (!KNOWN_MODELS.has(body.model)) {
    return openAiError(res, 404, `The model \`${body.model}\` does not exist or you do not have access to it.`, 'invalid_request_error', 'model_not_found');
  }
  behaviour(res, body);
}

beforeAll(async () => {
  server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  received = [];
  behaviour = completion;
});

const modelFor = (overrides: { baseUrl?: string; apiKey?: string; timeoutMs?: number; fetch?: typeof fetch } = {}): TextModel =>
  openAiCompatibleModel({ baseUrl, apiKey: API_KEY, modelMap: { fast: 'gpt-4o-mini', smart: 'gpt-4o' }, ...overrides });

const request = (overrides: Partial<TextGenerationRequest> = {}): TextGenerationRequest => ({
  model: 'fast',
  prompt: 'Classify the sentiment as positive or negative.',
  signal: new AbortController().signal,
  ...overrides,
});

/** The ApiError a promise rejects with; fails the test when it resolves or rejects with something else. */
async function apiError(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

/** A port on which nothing listens: bound, then released. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('openAiCompatibleModel: the request', () => {
  it('posts a chat completion with the mapped model, prompt and input, and the key', async () => {
    await modelFor().generate(request({ input: 'I love this product.', maxTokens: 50, temperature: 0.2, topP: 0.9 }));
    expect(received).toHaveLength(1);
    const [call] = received;
    expect(call!.method).toBe('POST');
    expect(call!.url).toBe('/v1/chat/completions');
    expect(call!.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(call!.headers['content-type']).toBe('application/json');
    expect(call!.body).toEqual({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Classify the sentiment as positive or negative.\n\nI love this product.' }],
      max_tokens: 50,
      temperature: 0.2,
      top_p: 0.9,
    });
  });

  it('sends an unmapped model unchanged and leaves out the settings not given', async () => {
    await modelFor().generate(request({ model: 'llama-3.1-8b' }));
    expect(received[0]!.body).toEqual({
      model: 'llama-3.1-8b',
      messages: [{ role: 'user', content: 'Classify the sentiment as positive or negative.' }],
    });
  });

  it('sends temperature 0 rather than dropping it', async () => {
    await modelFor().generate(request({ temperature: 0 }));
    expect(received[0]!.body.temperature).toBe(0);
  });

  it('does not treat Object.prototype members as mapped models', async () => {
    await apiError(modelFor().generate(request({ model: 'toString' })));
    expect(received[0]!.body.model).toBe('toString');
  });

  it('accepts a base URL with a trailing slash', async () => {
    await modelFor({ baseUrl: `${baseUrl}/` }).generate(request());
    expect(received[0]!.url).toBe('/v1/chat/completions');
  });

  it('sends no Authorization header without a key', async () => {
    const error = await apiError(openAiCompatibleModel({ baseUrl, modelMap: {} }).generate(request({ model: 'gpt-4o' })));
    expect(received[0]!.headers.authorization).toBeUndefined();
    expect(error.code).toBe('provider_failed');
    expect(error.details).toMatchObject({ upstreamStatus: 401, upstreamMessage: "You didn't provide an API key." });
  });
});

describe('openAiCompatibleModel: the answer', () => {
  it('returns the content and token usage under the requested model name', async () => {
    const result = await modelFor().generate(request());
    expect(result).toEqual({ text: 'positive', model: 'fast', tokens: { input: 17, output: 1 } });
  });

  it('keeps an empty answer', async () => {
    behaviour = (res, body) => completion(res, body, '');
    expect((await modelFor().generate(request())).text).toBe('');
  });
});

describe('openAiCompatibleModel: errors', () => {
  it('turns a 400 into 502 provider_failed with the upstream message', async () => {
    behaviour = (res) => openAiError(res, 400, "Invalid 'max_tokens': integer below minimum value.", 'invalid_request_error', 'integer_below_min_value');
    const error = await apiError(modelFor().generate(request({ maxTokens: 1 })));
    expect(error.code).toBe('provider_failed');
    expect(shippedStatus(error)).toBe(502);
    expect(error.details).toEqual({ upstreamStatus: 400, upstreamMessage: "Invalid 'max_tokens': integer below minimum value." });
  });

  it('turns a 500 into 502 provider_failed, truncating a long upstream message to 500 characters', async () => {
    behaviour = (res) => openAiError(res, 500, `The server had an error. ${'x'.repeat(2000)}`, 'server_error', null);
    const error = await apiError(modelFor().generate(request()));
    expect(error.code).toBe('provider_failed');
    expect(shippedStatus(error)).toBe(502);
    const message = error.details!.upstreamMessage as string;
    expect(message).toHaveLength(500);
    expect(message.startsWith('The server had an error. xxx')).toBe(true);
  });

  it('reads the message of a vLLM-style error body', async () => {
    behaviour = (res) => json(res, 400, { object: 'error', message: 'max_tokens is too large', type: 'BadRequestError', code: 400 });
    const error = await apiError(modelFor().generate(request()));
    expect(error.details).toEqual({ upstreamStatus: 400, upstreamMessage: 'max_tokens is too large' });
  });

  it('turns an error without a JSON body into provider_failed without a message', async () => {
    behaviour = (res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html>Bad gateway</html>');
    };
    const error = await apiError(modelFor().generate(request()));
    expect(error.code).toBe('provider_failed');
    expect(error.details).toEqual({ upstreamStatus: 502 });
  });

  it('turns a 429 into 503 provider_unavailable, passing Retry-After on', async () => {
    behaviour = (res) =>
      openAiError(res, 429, 'Rate limit reached for gpt-4o-mini in organization org-abc on tokens per min.', 'tokens', 'rate_limit_exceeded', { 'retry-after': '7' });
    const error = await apiError(modelFor().generate(request()));
    expect(error.code).toBe('provider_unavailable');
    expect(shippedStatus(error)).toBe(503);
    expect(error.details).toEqual({ upstreamStatus: 429 });
    expect(error.headers).toEqual({ 'Retry-After': '7' });
  });

  it('turns a 503 into 503 provider_unavailable', async () => {
    behaviour = (res) => openAiError(res, 503, 'The engine is currently overloaded, please try again later.', 'server_error', null);
    const error = await apiError(modelFor().generate(request()));
    expect(error.code).toBe('provider_unavailable');
    expect(shippedStatus(error)).toBe(503);
    expect(error.details).toEqual({ upstreamStatus: 503 });
    expect(error.headers).toBeUndefined();
  });

  it('turns an unknown upstream model into 400 model_not_available', async () => {
    const error = await apiError(modelFor().generate(request({ model: 'gpt-99' })));
    expect(error.code).toBe('model_not_available');
    expect(shippedStatus(error)).toBe(400);
    expect(error.details).toEqual({ model: 'gpt-99', upstreamStatus: 404 });
  });

  it.each([
    ['masked, as OpenAI does', 'sk-proj-WRONGkey0123456789', ['sk-proj', '6789']],
    ['whole', 'local-proxy-secret-42', ['local-proxy-secret-42']],
  ])('never passes the API key on when the provider quotes it %s', async (_, wrongKey, fragments) => {
    const error = await apiError(modelFor({ apiKey: wrongKey }).generate(request()));
    expect(received[0]!.headers.authorization).toBe(`Bearer ${wrongKey}`);
    expect(error.code).toBe('provider_failed');
    expect(shippedStatus(error)).toBe(502);
    expect(error.details!.upstreamStatus).toBe(401);
    const everything = JSON.stringify({ message: error.message, details: error.details });
    expect(everything).toContain('Incorrect API key provided: [redacted].');
    for (const fragment of fragments) expect(everything).not.toContain(fragment);
  });

  it.each([
    ['not JSON', (res: ServerResponse) => void res.writeHead(200, { 'content-type': 'text/plain' }).end('ok')],
    ['no choices', (res: ServerResponse) => json(res, 200, { object: 'chat.completion', usage: { prompt_tokens: 1, completion_tokens: 1 } })],
    ['null content', (res: ServerResponse) => json(res, 200, { choices: [{ message: { role: 'assistant', content: null } }], usage: { prompt_tokens: 1, completion_tokens: 0 } })],
    ['no usage', (res: ServerResponse) => json(res, 200, { choices: [{ message: { role: 'assistant', content: 'hi' } }] })],
    ['negative usage', (res: ServerResponse) => json(res, 200, { choices: [{ message: { content: 'hi' } }], usage: { prompt_tokens: -1, completion_tokens: 1 } })],
  ])('turns a 200 with %s into 502 provider_failed', async (_, answer) => {
    behaviour = answer;
    const error = await apiError(modelFor().generate(request()));
    expect(error.code).toBe('provider_failed');
    expect(shippedStatus(error)).toBe(502);
    expect(error.details).toEqual({ upstreamStatus: 200 });
  });

  it('turns a refused connection into 503 provider_unavailable', async () => {
    const port = await closedPort();
    const error = await apiError(modelFor({ baseUrl: `http://127.0.0.1:${port}/v1` }).generate(request()));
    expect(error.code).toBe('provider_unavailable');
    expect(shippedStatus(error)).toBe(503);
    expect(error.details).toEqual({ reason: 'ECONNREFUSED' });
    expect(error.message).not.toContain(API_KEY);
  });

  it('turns a failed DNS lookup (a fetch TypeError) into 503 provider_unavailable', async () => {
    const failingFetch = (async () => {
      throw new TypeError('fetch failed', { cause: Object.assign(new Error('getaddrinfo ENOTFOUND api.example.invalid'), { code: 'ENOTFOUND' }) });
    }) as typeof fetch;
    const error = await apiError(modelFor({ fetch: failingFetch }).generate(request()));
    expect(error.code).toBe('provider_unavailable');
    expect(error.details).toEqual({ reason: 'ENOTFOUND' });
  });

  it('turns its own time-out into 503 provider_unavailable', async () => {
    behaviour = () => {}; // never answers
    const error = await apiError(modelFor({ timeoutMs: 100 }).generate(request()));
    expect(error.code).toBe('provider_unavailable');
    expect(error.details).toEqual({ timeoutMs: 100 });
  });

  it('times out even when the collector runs while it waits', async () => {
    // Node's timer holds a time-out signal weakly, and a signal made by AbortSignal.any holds its sources
    // weakly too: a time-out nothing else holds can be collected before it fires, and the call then hangs.
    let arrived!: () => void;
    const requestArrived = new Promise<void>((resolve) => (arrived = resolve));
    behaviour = () => arrived(); // never answers
    const pending = apiError(modelFor({ timeoutMs: 300 }).generate(request()));
    await requestArrived;
    for (let i = 0; i < 3; i++) collectGarbage();
    const error = await Promise.race([pending, new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 3000))]);
    expect(error).toMatchObject({ code: 'provider_unavailable', details: { timeoutMs: 300 } });
  });
});

describe('openAiCompatibleModel: aborts', () => {
  it('rejects with the signal reason, unwrapped, when the caller aborts mid-call', async () => {
    let arrived!: () => void;
    const requestArrived = new Promise<void>((resolve) => (arrived = resolve));
    behaviour = () => arrived(); // never answers
    const controller = new AbortController();
    const reason = new Error('the call timed out');
    const pending = modelFor({ timeoutMs: 10_000 }).generate(request({ signal: controller.signal }));
    await requestArrived;
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });

  it('rejects with the signal reason while the body is still arriving', async () => {
    let arrived!: () => void;
    const headersSent = new Promise<void>((resolve) => (arrived = resolve));
    behaviour = (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"choices": [');
      arrived();
    };
    const controller = new AbortController();
    const reason = new Error('caller went away');
    const pending = modelFor().generate(request({ signal: controller.signal }));
    await headersSent;
    await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });

  it('sends nothing when the signal is already aborted', async () => {
    const controller = new AbortController();
    const reason = new Error('already gone');
    controller.abort(reason);
    await expect(modelFor().generate(request({ signal: controller.signal }))).rejects.toBe(reason);
    expect(received).toHaveLength(0);
  });
});

/** Answers as OpenAI streams a chat completion: chunks of content, a chunk with the usage, then [DONE]. */
function streamed(pieces: string[], options: { usage?: boolean; done?: boolean; failAfter?: number; split?: boolean } = {}): Behaviour {
  return (res, body) => {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
    const chunk = (choices: unknown[], usage: unknown = null) =>
      `data: ${JSON.stringify({ id: 'chatcmpl-123', object: 'chat.completion.chunk', created: 1_700_000_000, model: `${body.model}-2024-07-18`, system_fingerprint: 'fp_test', choices, usage })}\n\n`;
    const parts = [chunk([{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }])];
    pieces.forEach((content, i) => {
      if (options.failAfter === i) parts.push(`data: ${JSON.stringify({ error: { message: 'The server had an error while processing your request.', type: 'server_error' } })}\n\n`);
      else parts.push(chunk([{ index: 0, delta: { content }, logprobs: null, finish_reason: null }]));
    });
    parts.push(chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }]));
    if (options.usage !== false && body.stream_options?.include_usage) parts.push(chunk([], { prompt_tokens: 9, completion_tokens: pieces.length, total_tokens: 9 + pieces.length }));
    if (options.done !== false) parts.push('data: [DONE]\n\n');
    const text = parts.join('');
    // Split mid-line too, as TCP may: a parser must put events back together.
    const cuts = options.split ? text.match(/[\s\S]{1,7}/g)! : [text];
    let i = 0;
    const next = () => (i < cuts.length ? (res.write(cuts[i++]), setImmediate(next)) : res.end());
    next();
  };
}

describe('openAiCompatibleModel: streaming', () => {
  it('asks for a stream with usage and hands over each piece as it arrives', async () => {
    behaviour = streamed(['Pos', 'itive', '!'], { split: true });
    const deltas: string[] = [];
    const result = await modelFor().generate(request({ onDelta: (text) => void deltas.push(text) }));
    expect(received[0]!.body).toMatchObject({ model: 'gpt-4o-mini', stream: true, stream_options: { include_usage: true } });
    expect(deltas).toEqual(['Pos', 'itive', '!']);
    expect(result).toEqual({ text: 'Positive!', model: 'fast', tokens: { input: 9, output: 3 } });
  });

  it('does not ask for a stream when nobody listens', async () => {
    await modelFor().generate(request());
    expect(received[0]!.body.stream).toBeUndefined();
    expect(received[0]!.body.stream_options).toBeUndefined();
  });

  it('turns an error in the middle of the stream into 502 provider_failed', async () => {
    behaviour = streamed(['a', 'b', 'c'], { failAfter: 1 });
    const deltas: string[] = [];
    const error = await apiError(modelFor().generate(request({ onDelta: (text) => void deltas.push(text) })));
    expect(deltas).toEqual(['a']);
    expect(error.code).toBe('provider_failed');
    expect(error.details).toEqual({ upstreamMessage: 'The server had an error while processing your request.' });
  });

  it.each([
    ['without [DONE]', { done: false }],
    ['without usage', { usage: false }],
  ])('refuses a stream %s as not a whole completion', async (_name, options) => {
    behaviour = streamed(['a'], options);
    const error = await apiError(modelFor().generate(request({ onDelta: () => {} })));
    expect(error.code).toBe('provider_failed');
    expect(error.message).toContain('chat completion stream');
  });

  it('rejects with the signal reason when the caller aborts mid-stream', async () => {
    behaviour = (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'first' } }] })}\n\n`);
    };
    const controller = new AbortController();
    const reason = new Error('client went away');
    const pending = modelFor().generate(request({ signal: controller.signal, onDelta: () => controller.abort(reason) }));
    await expect(pending).rejects.toBe(reason);
  });

  it('streams through POST /do to a client, end to end', async () => {
    behaviour = streamed(['Hello', ',', ' world']);
    const server = await startServer({ providers: { live: modelFor() } });
    try {
      const key = (await server.key({ mode: 'live' })).secret;
      const reply = await postStream(server.url, { face: 'ai', action: 'generate', payload: { model: 'fast', prompt: 'Say hello' }, options: { stream: true } }, {
        authorization: `Bearer ${key}`,
        'x-entity-id': 'acme',
      });
      expect(reply.events.map((e) => e.event)).toEqual(['start', 'delta', 'delta', 'delta', 'result']);
      expect(reply.events.filter((e) => e.event === 'delta').map((e) => e.data.text)).toEqual(['Hello', ',', ' world']);
      expect(reply.events.at(-1)!.data.data).toEqual({ text: 'Hello, world', model: 'fast', tokens: { input: 9, output: 3 } });
    } finally {
      await server.close();
    }
  });
});

describe('createProviders', () => {
  it('has no live model without AI_BASE_URL, and always the test model', () => {
    const providers = createProviders({ AI_API_KEY: API_KEY });
    expect(providers.ai.live).toBeUndefined();
    expect(providers.ai.test).toBe(testTextModel);
    expect(createProviders({ AI_BASE_URL: '  ' }).ai.live).toBeUndefined();
  });

  it.each([
    ['JSON', '{"fast": "gpt-4o-mini", "smart": "gpt-4o"}'],
    ['a name=model list', ' fast = gpt-4o-mini , smart=gpt-4o,'],
  ])('wires AI_BASE_URL, AI_API_KEY and an AI_MODEL_MAP given as %s into the live model', async (_, map) => {
    const providers = createProviders({ AI_BASE_URL: baseUrl, AI_API_KEY: API_KEY, AI_MODEL_MAP: map });
    expect(await providers.ai.live!.generate(request({ model: 'smart' }))).toEqual({ text: 'positive', model: 'smart', tokens: { input: 17, output: 1 } });
    expect(received[0]!.body.model).toBe('gpt-4o');
    expect(received[0]!.headers.authorization).toBe(`Bearer ${API_KEY}`);
  });

  it.each([
    ['broken JSON', '{"fast": '],
    ['a JSON array', '[]'],
    ['a non-string JSON value', '{"fast": 1}'],
    ['a pair without "="', 'fast=gpt-4o-mini,smart'],
    ['an empty model', 'fast='],
    ['an empty name', '=gpt-4o'],
    ['a name given twice', 'fast=a,fast=b'],
  ])('rejects an AI_MODEL_MAP with %s, naming the variable', (_, map) => {
    expect(() => createProviders({ AI_MODEL_MAP: map })).toThrow(/AI_MODEL_MAP/);
  });

  it('rejects an AI_BASE_URL that is not an http(s) URL, naming the variable', () => {
    expect(() => createProviders({ AI_BASE_URL: 'api.openai.com/v1' })).toThrow(/AI_BASE_URL/);
    expect(() => createProviders({ AI_BASE_URL: 'ftp://example.com/v1' })).toThrow(/AI_BASE_URL/);
  });

  it('reads an empty or unset AI_MODEL_MAP as no mapping', () => {
    expect(parseModelMap(undefined)).toEqual({});
    expect(parseModelMap('  ')).toEqual({});
  });
});
