/**
 * The serializers the generator compiles from closed result schemas (src/generate/result-serializer.ts), one
 * beside each action's checks in its face's module, found for a call's action once that module is loaded.
 */
import type { ActionEntry, GeneratedRef } from '../core/dispatch-types.js';
import { generatedModule } from './generated-module.js';

/** The text JSON.stringify gives a result, or undefined for a value the serializer was not made for. */
export type ResultSerializer = (data: unknown) => string | undefined;

/** Each action's serializer by the reference that names it, once its module is loaded. */
const found = new WeakMap<GeneratedRef, ResultSerializer>();

/** The serializer of the action's result; undefined for an open result schema, or before its module is loaded. */
export function resultSerializerOf(action: ActionEntry | undefined): ResultSerializer | undefined {
  const ref = action?.result;
  if (!ref) return undefined;
  let serializer = found.get(ref);
  if (!serializer) {
    serializer = generatedModule(ref.module).find(ref.name) as ResultSerializer | undefined;
    if (serializer) found.set(ref, serializer);
  }
  return serializer;
}
