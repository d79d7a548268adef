/**
 * What `dispatch new` accepts as a face or action name: the patterns of the face language (read from
 * face.schema.json, so the two never disagree) and no name the platform keeps for itself. A refusal is a
 * `ScaffoldError`, which the command prints as one line and exits 2 on, before anything is written.
 */
import { readMetaSchema } from '../spec/meta-schemas.js';
import { RESERVED_FACE_NAMES } from '../spec/reserved-names.js';

export class ScaffoldError extends Error {
  override readonly name = 'ScaffoldError';
}

interface FaceMetaSchema {
  properties: { face: { pattern: string }; actions: { propertyNames: { pattern: string } } };
}

const meta = readMetaSchema('face.schema.json') as FaceMetaSchema;

export const FACE_NAME = new RegExp(meta.properties.face.pattern);
export const ACTION_NAME = new RegExp(meta.properties.actions.propertyNames.pattern);

/** Refuses a face name that breaks the face language's pattern or is reserved whatever the face files say. */
export function checkFaceName(name: string): void {
  if (!FACE_NAME.test(name)) {
    throw new ScaffoldError(`face name "${name}" is not valid: it must match ${FACE_NAME.source} (lower-case letters and digits, a letter first).`);
  }
  const reason = RESERVED_FACE_NAMES.get(name);
  if (reason) throw new ScaffoldError(`face name "${name}" is reserved: ${reason}.`);
}

/** Refuses the name of a built-in face (`builtin`, read from the faces directory). */
export function checkNotBuiltin(name: string, builtin: readonly string[]): void {
  if (builtin.includes(name)) throw new ScaffoldError(`face name "${name}" is reserved: it is a built-in face, served by the runtime itself.`);
}

export function checkActionName(name: string): void {
  if (!ACTION_NAME.test(name)) {
    throw new ScaffoldError(`action name "${name}" is not valid: it must match ${ACTION_NAME.source} (camelCase, a lower-case letter first).`);
  }
}
