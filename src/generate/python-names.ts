/**
 * Names in the generated Python package: the wire's camelCase as snake_case (`createIntent` → `create_intent`),
 * a Python keyword or a name the surrounding code owns with a trailing underscore (`from` → `from_`), and string
 * literals in Python's syntax.
 */

const KEYWORDS = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(
    ' ',
  ),
);

/** Whether `name` is a Python keyword, which can be neither an argument's nor a class-syntax key's name. */
export const isKeyword = (name: string) => KEYWORDS.has(name);

/** `createIntent` → `create_intent`, `last4` → `last4`, `URLPath` → `url_path`; anything not a name character → `_`. */
export function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9_]+/g, '_')
    .replace(/^(\d)/, '_$1')
    .toLowerCase();
}

/** `name` as a Python identifier: a keyword, or one of `taken`, gets a trailing underscore. */
export function pythonName(name: string, taken: ReadonlySet<string> = new Set()): string {
  const snake = snakeCase(name);
  return KEYWORDS.has(snake) || taken.has(snake) ? `${snake}_` : snake;
}

/** A Python string literal: JSON's escapes are Python's too, for the text a face file holds. */
export const pyString = (text: string) => JSON.stringify(text);

/** A docstring body at `indent`: lines trimmed at their ends, `"""` and backslashes escaped. */
export function docstring(text: string, indent: string): string[] {
  const lines = text
    .trim()
    .replace(/\\/g, '\\\\')
    .replace(/"""/g, '\\"\\"\\"')
    .split(/\r\n|\r|\n/)
    .map((line) => line.trimEnd());
  if (lines.length === 1) return [`${indent}"""${lines[0]}"""`];
  return [`${indent}"""${lines[0]}`, ...lines.slice(1).map((line) => (line ? `${indent}${line}` : '')), `${indent}"""`];
}
