/** The interface every text-embedding backend implements. */

export interface EmbeddingRequest {
  model: string;
  /** The texts to embed, at least one; the answer has one vector per text, in this order. */
  input: string[];
  /** The length of each vector; without it the model's own. */
  dimensions?: number;
  /** The call's, made when first read: a getter of the request's class, which a spread of the request leaves out. */
  signal: AbortSignal;
}

export interface EmbeddingResult {
  /** The model as it was asked for (its public name). */
  model: string;
  /** One vector per input text, in the order of the input. */
  vectors: number[][];
  tokens: { input: number };
}

export interface EmbeddingModel {
  embed(request: EmbeddingRequest): Promise<EmbeddingResult>;
}
