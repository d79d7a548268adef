/**
 * Values written as TypeScript expressions and laid out: the JSON the catalogue holds (rate limits, costs,
 * names), code the emitter names (a constant, a loader), `new Map([...])` of entries and `new Set([...])` of
 * members. A value that fits its line stays on it; one that does not breaks one property or element a line,
 * each laid out the same way in turn, and a map or a set breaks after `new Map([` or `new Set([`. An array of two or more objects (or arrays) with two or more
 * properties (or elements) each is always broken, one a line, so that a table reads as one.
 */
import { isObject } from '../spec/json-schema.js';
import { fits, IDENTIFIER, quoted } from './layout.js';

/** Source text written as it is: a name, a call. */
export class Code {
  constructor(readonly text: string) {}
}

/** `new Map<types>([...items])` or `new Set<types>([...items])`. */
abstract class Collection {
  abstract readonly kind: 'Map' | 'Set';
  constructor(
    readonly types: string,
    readonly items: unknown[],
  ) {}
}

/** A map: each item a `[key, value]` pair. */
export class MapOf extends Collection {
  readonly kind = 'Map';
  constructor(types: string, entries: [unknown, unknown][]) {
    super(types, entries);
  }
}

/** A set of its members. */
export class SetOf extends Collection {
  readonly kind = 'Set';
}

/** The lines of `head`, then `value`, then `end`, breaking from `indent`. */
export function valueLines(value: unknown, head: string, indent: string, end: string): string[] {
  if (!mustBreak(value)) {
    const line = `${head}${flatValue(value)}${end}`;
    if (fits(line)) return [line];
  }
  const inner = `${indent}  `;
  if (value instanceof Collection) {
    if (value.items.length === 0) return [`${head}${flatValue(value)}${end}`];
    return [`${head}new ${value.kind}${value.types}([`, ...value.items.flatMap((item) => valueLines(item, inner, inner, ',')), `${indent}])${end}`];
  }
  if (Array.isArray(value) && value.length > 0) return [`${head}[`, ...value.flatMap((item) => valueLines(item, inner, inner, ',')), `${indent}]${end}`];
  if (isPlainObject(value) && Object.keys(value).length > 0) {
    return [`${head}{`, ...Object.entries(value).flatMap(([key, item]) => valueLines(item, `${inner}${propertyKey(key)}: `, inner, ',')), `${indent}}${end}`];
  }
  // A string, a number or a name has nowhere to break: it runs past the width.
  return [`${head}${flatValue(value)}${end}`];
}

/** `value` on one line. */
export function flatValue(value: unknown): string {
  if (value instanceof Code) return value.text;
  if (value instanceof Collection) return `new ${value.kind}${value.types}([${value.items.map(flatValue).join(', ')}])`;
  if (typeof value === 'string') return quoted(value);
  // JSON's number, with an exponent as JavaScript writes it shortest (1e21, not 1e+21).
  if (typeof value === 'number') return JSON.stringify(value).replace('e+', 'e');
  if (typeof value === 'boolean' || value === null) return String(value);
  if (Array.isArray(value)) return `[${value.map(flatValue).join(', ')}]`;
  if (!isPlainObject(value)) throw new Error(`The generator cannot write ${String(value)} as a value.`);
  const entries = Object.entries(value).map(([key, item]) => `${propertyKey(key)}: ${flatValue(item)}`);
  return entries.length ? `{ ${entries.join(', ')} }` : '{}';
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => isObject(value) && !(value instanceof Code) && !(value instanceof Collection);

/** Whether the value, or one inside it, is a table that breaks whether or not it fits. */
function mustBreak(value: unknown): boolean {
  if (value instanceof Collection) return mustBreak(value.items);
  if (Array.isArray(value)) return isTable(value) || value.some(mustBreak);
  return isPlainObject(value) && Object.values(value).some(mustBreak);
}

/** Two or more objects with two or more properties each, or arrays with two or more elements each. */
function isTable(items: unknown[]): boolean {
  if (items.length < 2) return false;
  return items.every((item) => Array.isArray(item) && item.length > 1) || items.every((item) => isPlainObject(item) && Object.keys(item).length > 1);
}

/** A key as a name where it can be one, quoted where not. */
const propertyKey = (key: string) => (IDENTIFIER.test(key) ? key : quoted(key));
