/**
 * What `dispatch new` accepts as a face or action name: the patterns of the face language (read from
 * face.schema.json, so the two never disagree) and no name the platform keeps for itself. A refusal is a
 * `ScaffoldError`, which the command prints as one line and exits 2 on, before anything is written.
 */
import { readMetaSchema } from '../spec/meta-schemas.js';

export class ScaffoldError extends Error {
  override readonly name = 'ScaffoldError';
}

interface FaceMetaSchema {
  properties: { face: { pattern: string }; actions: { propertyNames: { pattern: string } } };
}

const meta = readMetaSchema('face.schema.json') as FaceMetaSchema;

export const FACE_NAME = new RegExp(meta.properties.face.pattern);
export const ACTION_NAME = new RegExp(meta.properties.actions.propertyNames.pattern);

/**
 * Names no face may take, whatever the face files say, each for a reason outside them. (Built-in faces, such
 * as `batch`, are refused too; they are read from the faces directory.)
 */
const RESERVED_FACES = new Map<string, string>([
  ['platform', 'platform.yaml is the platform file, not a face'],
  // The generated client is a `BaseClient` with one property per face: these would shadow its own methods.
  ['call', "it would shadow the generated client's call() method"],
  ['stream', "it would shadow the generated client's stream() method (the runtime's server-sent-event calls)"],
  ['constructor', 'the generated client cannot have a property of that name'],
  // The face name is a variable of its handler module and an import of generated/server/handlers.ts.
  ...[
    'await', 'break', 'case', 'catch', 'class', 'const', 'continue', 'debugger', 'default', 'delete', 'do', 'else',
    'enum', 'export', 'extends', 'false', 'finally', 'for', 'function', 'if', 'implements', 'import', 'in',
    'instanceof', 'interface', 'let', 'new', 'null', 'package', 'private', 'protected', 'public', 'return',
    'static', 'super', 'switch', 'this', 'throw', 'true', 'try', 'typeof', 'var', 'void', 'while', 'with', 'yield',
    'arguments', 'eval', 'undefined',
  ].map((word) => [word, 'it is a JavaScript reserved word, and the face name becomes a variable'] as [string, string]),
]);

/** Refuses a face name that breaks the face language's pattern or is reserved whatever the face files say. */
export function checkFaceName(name: string): void {
  if (!FACE_NAME.test(name)) {
    throw new ScaffoldError(`face name "${name}" is not valid: it must match ${FACE_NAME.source} (lower-case letters and digits, a letter first).`);
  }
  const reason = RESERVED_FACES.get(name);
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
