/**
 * The errors of a catalogue and of each of its actions: every code the platform and the faces declare, and
 * the codes an action answers beyond the pipeline's, as its face file lists them under `errors`, or, when it
 * lists none, every code of its face. The OpenAPI document and the docs list them per action.
 */
import type { Action, Catalog, Face, FaceError } from './model.js';
import { STANDARD_ERRORS } from './standard-errors.js';

/** Every error the catalogue declares: the platform's, then each face's. */
export function catalogErrors(catalog: Catalog): FaceError[] {
  return [...STANDARD_ERRORS, ...catalog.faces.flatMap((f) => f.errors)];
}

/** The codes the catalogue marks retryable (a retry of the same request can succeed), each once, sorted. */
export function retryableErrorCodes(catalog: Catalog): string[] {
  return [...new Set(catalogErrors(catalog).filter((e) => e.retryable).map((e) => e.code))].sort();
}

/** The codes `action` answers beyond the pipeline's, sorted. */
export function actionErrorCodes(face: Face, action: Action): string[] {
  return action.errors ?? face.errors.map((e) => e.code);
}
