/**
 * A stand-in for OpenAI's embeddings endpoint for tests: a real HTTP server on 127.0.0.1 that checks a request
 * as OpenAI does (a Bearer key, a JSON body, a model it has, `input` a string or a list of non-empty strings,
 * `dimensions` only for the text-embedding-3 models and not beyond their size, `encoding_format`) and answers
 * in OpenAI's shape: `{object: "list", data: [{object: "embedding", index, embedding}], model, usage}`, or
 * OpenAI's error bodies. So the provider client is tested against the wire format, with no account needed.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const FAKE_API_KEY = 'sk-test-embeddings-0123456789';

/** The models the fake has, with their vector sizes and whether they take `dimensions`. */
const MODELS: Record<string, { size: number; shortens: boolean }> = {
  'text-embedding-3-small': { size: 1536, shortens: true },
  'text-embedding-3-large': { size: 3072, shortens: true },
  'text-embedding-ada-002': { size: 1536, shortens: false },
};

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: any;
}

export interface FakeEmbeddings {
  /** `http://127.0.0.1:<port>/v1`, the form `AI_BASE_URL` takes. */
  baseUrl: string;
  requests: ReceivedRequest[];
  /**
   * Answers in place of the endpoint once a request passed OpenAI's checks; undefined lets the endpoint
   * answer. `answer` is what the endpoint would have sent.
   */
  override: ((res: ServerResponse, body: any, answer: EmbeddingList) => void) | undefined;
  /** Forgets the requests and the override. */
  reset(): void;
  close(): Promise<void>;
}

export interface EmbeddingList {
  object: 'list';
  data: Array<{ object: 'embedding'; index: number; embedding: number[] | string }>;
  model: string;
  usage: { prompt_tokens: number; total_tokens: number };
}

/** The fake's vector for a text: plain numbers a test can compute again, unlike the test model's. */
export function fakeVector(text: string, dimensions: number): number[] {
  return Array.from({ length: dimensions }, (_, i) => ((text.length + i) % 10) / 10 - 0.45);
}

/** The fake's token count: words separated by white space. */
export function fakeTokens(texts: string[]): number {
  return texts.reduce((sum, text) => sum + text.split(/\s+/).filter(Boolean).length, 0);
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export function openAiError(res: ServerResponse, status: number, message: string, type: string, code: string | null, headers?: Record<string, string>): void {
  json(res, status, { error: { message, type, param: null, code } }, headers);
}

export async function startFakeEmbeddings(): Promise<FakeEmbeddings> {
  const fake: FakeEmbeddings = {
    baseUrl: '',
    requests: [],
    override: undefined,
    reset() {
      fake.requests = [];
      fake.override = undefined;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    let body: any;
    try {
      body = JSON.parse(raw);
    } catch {
      body = undefined;
    }
    fake.requests.push({ method: req.method!, url: req.url!, headers: req.headers, body });
    if (req.method !== 'POST' || req.url !== '/v1/embeddings') {
      return openAiError(res, 404, `Invalid URL (${req.method} ${req.url})`, 'invalid_request_error', null);
    }
    const auth = req.headers.authorization;
    if (auth !== `Bearer ${FAKE_API_KEY}`) {
      const message = auth ? `Incorrect API key provided: ${auth.slice(7)}.` : "You didn't provide an API key.";
      return openAiError(res, 401, message, 'invalid_request_error', auth ? 'invalid_api_key' : null);
    }
    if (!req.headers['content-type']?.startsWith('application/json') || typeof body !== 'object' || body === null) {
      return openAiError(res, 400, 'We could not parse the JSON body of your request.', 'invalid_request_error', null);
    }
    if (typeof body.model !== 'string') return openAiError(res, 400, "Missing required parameter: 'model'.", 'invalid_request_error', 'missing_required_parameter');
    const texts: unknown[] = typeof body.input === 'string' ? [body.input] : Array.isArray(body.input) ? body.input : [];
    if (texts.length === 0 || texts.length > 2048 || !texts.every((t) => typeof t === 'string' && t !== '')) {
      return openAiError(res, 400, "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.", 'invalid_request_error', null);
    }
    if (body.encoding_format !== undefined && body.encoding_format !== 'float' && body.encoding_format !== 'base64') {
      return openAiError(res, 400, `Invalid value: '${body.encoding_format}'. Supported values are: 'float' and 'base64'.`, 'invalid_request_error', 'invalid_value');
    }
    const model = MODELS[body.model];
    if (!model) {
      return openAiError(res, 404, `The model \`${body.model}\` does not exist or you do not have access to it.`, 'invalid_request_error', 'model_not_found');
    }
    if (body.dimensions !== undefined && !model.shortens) {
      return openAiError(res, 400, 'This model does not support specifying dimensions.', 'invalid_request_error', null);
    }
    if (body.dimensions !== undefined && !(Number.isInteger(body.dimensions) && body.dimensions >= 1 && body.dimensions <= model.size)) {
      return openAiError(res, 400, `Invalid 'dimensions': must be between 1 and ${model.size}.`, 'invalid_request_error', 'invalid_value');
    }
    const dimensions: number = body.dimensions ?? model.size;
    const tokens = fakeTokens(texts as string[]);
    const answer: EmbeddingList = {
      object: 'list',
      data: (texts as string[]).map((text, index) => {
        const vector = fakeVector(text, dimensions);
        // Asked for base64, OpenAI sends the float32 numbers' little-endian bytes.
        const embedding = body.encoding_format === 'base64' ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector;
        return { object: 'embedding', index, embedding };
      }),
      model: body.model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    };
    if (fake.override) return fake.override(res, body, answer);
    json(res, 200, answer);
  }

  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return fake;
}
