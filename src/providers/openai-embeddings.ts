/**
 * An `EmbeddingModel` for any server that speaks the OpenAI embeddings wire format (OpenAI, Azure OpenAI
 * proxies, vLLM, Ollama, LiteLLM, ...): `POST {baseUrl}/embeddings` with the texts, floats asked for
 * explicitly. The HTTP call and its errors are openai-http.ts's, the same as for chat completions.
 */
import type { EmbeddingModel, EmbeddingRequest, EmbeddingResult } from './embedding-model.js';
import { isCount, openAiEndpoint, parseJson, providerModel, unexpectedAnswer, type OpenAiCompatibleOptions } from './openai-http.js';

/** Creates a model that calls `POST {baseUrl}/embeddings`. */
export function openAiCompatibleEmbeddings(options: OpenAiCompatibleOptions): EmbeddingModel {
  const post = openAiEndpoint(options, 'embeddings');
  return {
    async embed(request) {
      const reply = await post(
        {
          model: providerModel(options.modelMap, request.model),
          input: request.input,
          // Some clients default to base64; floats are what the answer carries on.
          encoding_format: 'float',
          ...(request.dimensions !== undefined ? { dimensions: request.dimensions } : {}),
        },
        request,
      );
      const result = parseEmbeddings(await reply.text(), request);
      if (!result) throw unexpectedAnswer('an embedding list for the input', reply.response.status);
      return result;
    },
  };
}

/**
 * Reads `{data: [{index, embedding}], usage: {prompt_tokens}}`. Undefined unless there is exactly one vector
 * of finite numbers for each input text, all of one length (the one asked for, when one was).
 */
function parseEmbeddings(text: string, request: EmbeddingRequest): EmbeddingResult | undefined {
  const body = parseJson(text) as { data?: unknown; usage?: { prompt_tokens?: unknown } } | undefined;
  const input = body?.usage?.prompt_tokens;
  if (!Array.isArray(body?.data) || body.data.length !== request.input.length || !isCount(input)) return undefined;
  // OpenAI answers in input order, but `index` is what ties a vector to its text.
  const vectors: number[][] = [];
  for (const item of body.data as Array<{ index?: unknown; embedding?: unknown } | null>) {
    const index = item?.index;
    const vector = item?.embedding;
    if (!Number.isSafeInteger(index) || (index as number) < 0 || (index as number) >= request.input.length || vectors[index as number]) return undefined;
    if (!Array.isArray(vector) || vector.length === 0 || !vector.every(Number.isFinite)) return undefined;
    vectors[index as number] = vector as number[];
  }
  const length = request.dimensions ?? vectors[0]!.length;
  if (vectors.some((vector) => vector.length !== length)) return undefined;
  return { model: request.model, vectors, tokens: { input } };
}
