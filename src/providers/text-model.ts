/** The interface every text-generation backend implements. */

export interface TextGenerationRequest {
  model: string;
  prompt: string;
  /** Text for the prompt to operate on. */
  input?: string;
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  signal: AbortSignal;
}

export interface TextGenerationResult {
  text: string;
  model: string;
  tokens: { input: number; output: number };
}

export interface TextModel {
  generate(request: TextGenerationRequest): Promise<TextGenerationResult>;
}
