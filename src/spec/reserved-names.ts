/**
 * Names no face may take, whatever the face files say, each with the reason: the generator refuses a face
 * file that takes one (`reserved-face-name`), and `dispatch new` refuses to scaffold one.
 */
export const RESERVED_FACE_NAMES: ReadonlyMap<string, string> = new Map<string, string>([
  ['platform', 'platform.yaml is the platform file, not a face'],
  // The generated client is a `BaseClient` with one property per face: these would shadow its own methods.
  ['call', "it would shadow the generated client's call() method"],
  ['stream', "it would shadow the generated client's stream() method (the runtime's server-sent-event calls)"],
  ['list', "it would shadow the generated client's list() method (the pages of list actions)"],
  ['constructor', 'the generated client cannot have a property of that name'],
  // The face name is the variable its module (src/faces/<face>/index.ts) exports and generated/server/modules.ts imports.
  ...[
    'await', 'break', 'case', 'catch', 'class', 'const', 'continue', 'debugger', 'default', 'delete', 'do', 'else',
    'enum', 'export', 'extends', 'false', 'finally', 'for', 'function', 'if', 'implements', 'import', 'in',
    'instanceof', 'interface', 'let', 'new', 'null', 'package', 'private', 'protected', 'public', 'return',
    'static', 'super', 'switch', 'this', 'throw', 'true', 'try', 'typeof', 'var', 'void', 'while', 'with', 'yield',
    'arguments', 'eval', 'undefined',
  ].map((word) => [word, 'it is a JavaScript reserved word, and the face name becomes a variable'] as [string, string]),
]);
