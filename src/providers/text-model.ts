/** The interface every text-generation backend implements. */

export interface TextGenerationRequest {
  model: string;
  prompt: string;
  /** Text for the prompt to operate on. */
  input?: string;
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  /** The call's, made when first read: a getter of the request's class, which a spread of the request leaves out. */
  signal: AbortSignal;
  /**
   * Asks for the answer as it is generated: called with each piece of text, in order; the pieces
   * concatenate to the result's `text`. A promise returned means the reader is behind: wait for it before
   * producing more.
   */
  onDelta?: (text: string) => void | Promise<void>;
}

export interface TextGenerationResult {
  text: string;
  model: string;
  tokens: { input: number; output: number };
}

export interface TextModel {
  generate(request: TextGenerationRequest): Promise<TextGenerationResult>;
}
