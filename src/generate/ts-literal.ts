/**
 * Values written as TypeScript source, for the snippets of the docs, the client's README and the OpenAPI
 * document's code samples.
 */

/** A value as TypeScript source: single-quoted strings, keys unquoted where they can be. */
export function literal(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  const entries = Object.entries(value).map(([key, item]) => `${/^[A-Za-z_$][\w$]*$/.test(key) ? key : literal(key)}: ${literal(item)}`);
  return entries.length ? `{ ${entries.join(', ')} }` : '{}';
}
