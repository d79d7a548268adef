/**
 * Plain values (the JSON the catalogue holds: rate limits, costs, names) written as TypeScript literals, laid
 * out as prettier lays them out: on their line if they fit, an object one property a line if not, each
 * property the same way. An array or a string that does not fit, an array of objects or arrays, or a key that
 * needs quotes, throws `Unsupported`: prettier's rules for those are its own, and the text goes to prettier.
 */
import { isObject } from '../spec/json-schema.js';
import { fits, IDENTIFIER, prettierString, Unsupported } from './prettier-layout.js';

/** The lines of `head`, then `value`, then `end`, at `indent`. */
export function valueLines(value: unknown, head: string, indent: string, end: string): string[] {
  const line = `${head}${flatValue(value)}${end}`;
  if (fits(line)) return [line];
  if (!isObject(value) || Object.keys(value).length === 0) throw new Unsupported();
  const inner = `${indent}  `;
  return [`${head}{`, ...Object.entries(value).flatMap(([key, item]) => valueLines(item, `${inner}${propertyKey(key)}: `, inner, ',')), `${indent}}${end}`];
}

/** `value` on one line, as prettier prints it when it fits. */
function flatValue(value: unknown): string {
  if (typeof value === 'string') return quoted(value);
  if (typeof value === 'number') {
    // prettier spells exponents its own way (1e21, not 1e+21).
    const text = JSON.stringify(value);
    if (/e/i.test(text)) throw new Unsupported();
    return text;
  }
  if (typeof value === 'boolean' || value === null) return String(value);
  if (Array.isArray(value)) {
    // prettier breaks an array of objects or of arrays even where it fits: a layout left to it.
    if (value.some((item) => typeof item === 'object' && item !== null)) throw new Unsupported();
    return `[${value.map(flatValue).join(', ')}]`;
  }
  if (!isObject(value)) throw new Unsupported();
  const entries = Object.entries(value).map(([key, item]) => `${propertyKey(key)}: ${flatValue(item)}`);
  return entries.length ? `{ ${entries.join(', ')} }` : '{}';
}

/** A string as prettier quotes it. */
export const quoted = (text: string) => prettierString(JSON.stringify(text).slice(1, -1));

function propertyKey(key: string): string {
  // A key that needs quotes is left to prettier, which spells it as its quoteProps setting says.
  if (!IDENTIFIER.test(key)) throw new Unsupported();
  return key;
}
