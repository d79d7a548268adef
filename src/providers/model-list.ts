/**
 * The models `ai.models` lists. Test keys: the names the test model is documented under (it answers to every
 * name; these are the ones the docs use, the embedding models with the length of their vectors). Live keys:
 * the names of `AI_MODEL_MAP`, each with the provider model it is sent as (any other name is sent unchanged,
 * so the provider may know more).
 */
import { testDimensions } from './test-embeddings.js';

export interface ModelInfo {
  /** The name to pass as `model`. */
  id: string;
  /** The provider's model the name is sent as (live keys). */
  providerModel?: string;
  /** The length of the model's vectors when a call asks for none (the test model's embedding models). */
  dimensions?: number;
}

export const TEST_MODELS: readonly ModelInfo[] = [
  { id: 'gpt-4o-mini' },
  { id: 'gpt-4o' },
  ...['text-embedding-3-small', 'text-embedding-3-large'].map((id) => ({ id, dimensions: testDimensions(id) })),
];

/** The live list from a parsed `AI_MODEL_MAP`, in the order the map gives its names. */
export function mappedModels(modelMap: Record<string, string>): ModelInfo[] {
  return Object.entries(modelMap).map(([id, providerModel]) => ({ id, providerModel }));
}
