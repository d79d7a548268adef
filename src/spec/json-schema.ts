/**
 * JSON Schema helpers of the face language: `since`/`until` versions on properties and on the alternatives of
 * a `oneOf`/`anyOf` (a field whose type changes in a version), and face-level named schemas referenced as
 * `#/schemas/<Name>`. `materialize` turns a schema as written into the self-contained schema one API version
 * validates against.
 */
import type { Action, JsonSchema } from './model.js';

export const SCHEMA_REF_PREFIX = '#/schemas/';

/** The keys a JSON pointer (ajv's `instancePath`, `/properties/a~1b`) names, in order. */
export const pointerKeys = (pointer: string): string[] => pointer.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));

/** Keywords whose value is a map of property name → schema. */
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs'] as const;
/** Keywords whose value is a schema. */
const SCHEMA_VALUES = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames'] as const;
/** Keywords whose value is a list of schemas. */
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'] as const;

type Path = (string | number)[];

/** Calls `visit` for every subschema (the root included) with its path from the root. */
export function walkSchema(schema: unknown, visit: (node: JsonSchema, path: Path) => void, path: Path = []): void {
  walk(schema, visit, path);
}

/**
 * Calls `visit` for every subschema (the root included), without building their paths: a run walks every
 * schema at every version many times over, and the paths were a sixth of all it allocated.
 */
export function eachSubschema(schema: unknown, visit: (node: JsonSchema) => void): void {
  walk(schema, visit, undefined);
}

function walk(schema: unknown, visit: (node: JsonSchema, path: Path) => void, path: Path | undefined): void {
  if (!isObject(schema)) return;
  visit(schema, path!);
  for (const key of SCHEMA_MAPS) {
    const map = schema[key];
    if (isObject(map)) for (const name of Object.keys(map)) walk(map[name], visit, path && [...path, key, name]);
  }
  for (const key of SCHEMA_VALUES) walk(schema[key], visit, path && [...path, key]);
  for (const key of SCHEMA_LISTS) {
    const list = schema[key];
    if (Array.isArray(list)) list.forEach((sub, i) => walk(sub, visit, path && [...path, key, i]));
  }
}

/** The action's payload schema in `version`, or undefined when that version does not serve the action. */
export function payloadIn(action: Action, version: string): JsonSchema | undefined {
  return action.variants.find((v) => v.versions.includes(version))?.schema;
}

/** True when a property annotated with `since`/`until` exists in `version`. */
export function presentIn(annotated: { since?: unknown; until?: unknown }, version: string): boolean {
  const since = typeof annotated.since === 'string' ? annotated.since : undefined;
  const until = typeof annotated.until === 'string' ? annotated.until : undefined;
  return (!since || since <= version) && (!until || version < until);
}

/**
 * The schema as served in `version`: properties and dated alternatives outside their `since`/`until` range
 * removed (properties dropped from `required`; a field left with one dated alternative takes it as its own
 * schema), annotations stripped, and `#/schemas/X` references rewritten to `#/$defs/X` with the referenced
 * named schemas attached.
 */
export function materialize(schema: JsonSchema, version: string, named: Record<string, JsonSchema>): JsonSchema {
  const root = forVersion(schema, version);
  const defs: Record<string, JsonSchema> = {};
  const pending = [...refsOf(root)];
  while (pending.length) {
    const name = pending.pop()!;
    if (defs[name] || !named[name]) continue;
    defs[name] = forVersion(named[name], version);
    pending.push(...refsOf(defs[name]));
  }
  const names = Object.keys(defs).sort();
  if (names.length) root.$defs = Object.fromEntries(names.map((n) => [n, defs[n]]));
  return root;
}

/** Names of the face schemas referenced (directly) by a schema. */
export function refsOf(schema: unknown): string[] {
  const names: string[] = [];
  eachSubschema(schema, (node) => {
    const ref = node.$ref;
    if (typeof ref === 'string' && ref.startsWith(SCHEMA_REF_PREFIX)) names.push(ref.slice(SCHEMA_REF_PREFIX.length));
    if (typeof ref === 'string' && ref.startsWith('#/$defs/')) names.push(ref.slice('#/$defs/'.length));
  });
  return names;
}

function forVersion(schema: unknown, version: string): JsonSchema {
  const copy = structuredClone(schema) as JsonSchema;
  eachSubschema(copy, (node) => {
    const properties = node.properties;
    if (isObject(properties)) {
      const removed = Object.keys(properties).filter((name) => !presentIn(properties[name] as JsonSchema, version));
      for (const name of removed) delete properties[name];
      if (Array.isArray(node.required)) {
        node.required = node.required.filter((name) => !removed.includes(name as string));
        if ((node.required as unknown[]).length === 0) delete node.required;
      }
    }
    for (const keyword of UNIONS) keepDatedAlternatives(node, keyword, version);
    delete node.since;
    delete node.until;
    if (typeof node.$ref === 'string' && node.$ref.startsWith(SCHEMA_REF_PREFIX)) {
      node.$ref = `#/$defs/${node.$ref.slice(SCHEMA_REF_PREFIX.length)}`;
    }
  });
  return copy;
}

/** Lists of alternatives that may date theirs: a field's type that changes in a version. */
export const UNIONS = ['oneOf', 'anyOf'] as const;

/** True when some alternative of the list carries `since` or `until`. */
export function isDated(alternatives: unknown): alternatives is JsonSchema[] {
  return Array.isArray(alternatives) && alternatives.some((a) => isObject(a) && (a.since !== undefined || a.until !== undefined));
}

/**
 * Keeps the alternatives of `node[keyword]` served in `version`. One left becomes the node's own schema (its
 * keywords added to the node's, which win), so `{ description, oneOf: [{ type: number, until }, ...] }` reads
 * as a plain `{ description, type: number }` in the versions before `until`.
 */
function keepDatedAlternatives(node: JsonSchema, keyword: (typeof UNIONS)[number], version: string): void {
  const alternatives = node[keyword];
  if (!isDated(alternatives)) return;
  const kept = alternatives.filter((a) => !isObject(a) || presentIn(a, version));
  if (kept.length !== 1 || !isObject(kept[0])) {
    node[keyword] = kept;
    return;
  }
  delete node[keyword];
  for (const [key, value] of Object.entries(kept[0])) if (!(key in node)) node[key] = value;
}

/**
 * JSON with object keys sorted, so equal schemas give equal text (and equal payloads equal idempotency
 * fingerprints, which stores keep: the text must never change). Written out rather than as `JSON.stringify`
 * with a replacer that rebuilds each object, which cost an idempotent call several microseconds. The order is
 * that of an object made with the sorted keys, as `JSON.stringify` reads one: keys that are array indices
 * first, by their number, then the others as sorted.
 */
export function canonicalJson(value: unknown): string {
  return canonical(value, '') as string;
}

/** An array index, as objects order their keys: a canonical number below 2 ** 32 - 1. */
const isIndex = (key: string) => /^(?:0|[1-9]\d{0,9})$/.test(key) && Number(key) < 4294967295;

/** `value` as JSON.stringify writes it under `key`; undefined where it writes nothing (a function, undefined). */
function canonical(value: unknown, key: string): string | undefined {
  const type = typeof value;
  if ((type === 'object' || type === 'function' || type === 'bigint') && value !== null && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    value = (value as { toJSON(key: string): unknown }).toJSON(key);
  }
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i++) text += `${i > 0 ? ',' : ''}${canonical(value[i], String(i)) ?? 'null'}`;
    return `${text}]`;
  }
  const record = value as Record<string, unknown>;
  let keys = Object.keys(record).sort();
  if (keys.some(isIndex)) {
    keys = [...keys.filter(isIndex).sort((a, b) => Number(a) - Number(b)), ...keys.filter((k) => !isIndex(k))];
  }
  let text = '{';
  for (const name of keys) {
    const written = canonical(record[name], name);
    if (written !== undefined) text += `${text.length > 1 ? ',' : ''}${JSON.stringify(name)}:${written}`;
  }
  return `${text}}`;
}

export function isObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
