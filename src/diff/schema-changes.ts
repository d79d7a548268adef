/**
 * Compares two self-contained JSON schemas (named schemas under `$defs`) field by field: fields added,
 * removed, made required or optional; types, enums and bounds narrowed or widened. It walks nested objects,
 * array items, `anyOf`/`oneOf`/`allOf` alternatives and `$ref`s, and reports each difference at the node of
 * the newer schema as the face file writes it (a `$ref` leads into `schemas/<Name>`). Whether a difference
 * breaks clients is decided by the caller, from whether the schema is sent or received.
 */
import { canonicalJson, isObject } from '../spec/json-schema.js';
import type { JsonSchema } from '../spec/model.js';
import type { JsonPath } from '../spec/source.js';
import type { SchemaAspect, Spot } from './change.js';

export interface SchemaChange {
  aspect: SchemaAspect;
  /** Dot path of the field, `[]` for array items; empty for the root. */
  field: string;
  /** Path in the face file of the newer schema's node. */
  path: JsonPath;
  key?: boolean;
  /** Nodes that may still be written though the field is gone at this version (its `until`), best first. */
  prefer?: Spot[];
  detail?: string;
}

const DEFS_PREFIX = '#/$defs/';
const ALL_TYPES = ['array', 'boolean', 'integer', 'null', 'number', 'object', 'string'];
/** Raising these rejects more values; lowering them accepts more. */
const LOWER_BOUNDS = ['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties', 'minContains'];
/** Lowering these rejects more values; raising them accepts more. */
const UPPER_BOUNDS = ['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties', 'maxContains'];
/** Adding or changing these may reject values accepted before; removing them accepts more. */
const CONSTRAINTS = ['pattern', 'format', 'multipleOf'];

type Report = (aspect: SchemaAspect, field: string, where: JsonPath, extra?: Pick<SchemaChange, 'key' | 'prefer' | 'detail'>) => void;

interface Side {
  schema: unknown;
  defs: Record<string, unknown>;
}

/**
 * Differences from `before` to `after`. `root` is where `after` is written in its face file, e.g.
 * `['actions', 'generate', 'payload']`. Bounds are compared only on what clients send: on what a server
 * sends they describe it, and no client relies on them.
 */
export function compareSchemas(before: JsonSchema, after: JsonSchema, root: JsonPath, direction: 'input' | 'output'): SchemaChange[] {
  const out: SchemaChange[] = [];
  const seen = new Set<string>();
  const defsOf = (s: JsonSchema) => (isObject(s.$defs) ? s.$defs : {});
  const walk = (b: Side, a: Side, field: string, path: JsonPath): void => {
    const bRef = refName(b.schema);
    const aRef = refName(a.schema);
    if (bRef !== undefined || aRef !== undefined) {
      // Recursive schemas meet the same pair of references again: compared once is enough.
      const pair = `${bRef ?? '-'}|${aRef ?? '-'}`;
      if (bRef !== undefined && aRef !== undefined && seen.has(pair)) return;
      seen.add(pair);
    }
    const before = deref(b);
    const after = deref(a);
    // The face file writes a referenced schema under `schemas/<Name>`, not where it is used.
    const at = aRef !== undefined ? ['schemas', aRef] : path;
    if (!isObject(before) || !isObject(after)) return;
    const report: Report = (aspect, changed, where, extra = {}) => out.push({ aspect, field: changed, path: where, ...extra });

    compareTypes(before, after, (aspect, detail) => report(aspect, field, after.type === undefined ? at : [...at, 'type'], { detail }));
    compareEnums(before, after, (aspect, detail) => report(aspect, field, enumKey(after) ? [...at, enumKey(after)!] : at, { detail }));
    if (direction === 'input') compareBounds(before, after, (aspect, keyword, detail) => report(aspect, field, keyword in after ? [...at, keyword] : at, { detail }));
    compareProperties(before, after, field, at, direction, report, (name, sub) => walk({ ...b, schema: sub.before }, { ...a, schema: sub.after }, joinField(field, name), [...at, 'properties', name]));
    if (isObject(before.items) && isObject(after.items)) walk({ ...b, schema: before.items }, { ...a, schema: after.items }, `${field}[]`, [...at, 'items']);
    if (isObject(before.additionalProperties) && isObject(after.additionalProperties)) {
      walk({ ...b, schema: before.additionalProperties }, { ...a, schema: after.additionalProperties }, `${field}{}`, [...at, 'additionalProperties']);
    }
    for (const keyword of ['prefixItems', 'anyOf', 'oneOf', 'allOf'] as const) {
      const bList = before[keyword];
      const aList = after[keyword];
      if (!Array.isArray(bList) || !Array.isArray(aList)) continue;
      const common = Math.min(bList.length, aList.length);
      for (let i = 0; i < common; i++) walk({ ...b, schema: bList[i] }, { ...a, schema: aList[i] }, field, [...at, keyword, i]);
      if (keyword === 'prefixItems' || bList.length === aList.length) continue;
      // Fewer alternatives accept less; fewer `allOf` members constrain less.
      const fewer = aList.length < bList.length;
      const narrows = keyword === 'allOf' ? !fewer : fewer;
      report(narrows ? 'type-narrowed' : 'type-widened', field, [...at, keyword], { detail: `${keyword}: ${bList.length} → ${aList.length} alternatives` });
    }
  };
  const b = { schema: before, defs: defsOf(before) };
  const a = { schema: after, defs: defsOf(after) };
  walk(b, a, '', root);
  return out;
}

function refName(schema: unknown): string | undefined {
  if (!isObject(schema) || typeof schema.$ref !== 'string' || !schema.$ref.startsWith(DEFS_PREFIX)) return undefined;
  return schema.$ref.slice(DEFS_PREFIX.length);
}

/** The schema a `$ref` names (a chain of them followed), or the schema itself. */
function deref(side: Side): unknown {
  let schema = side.schema;
  for (let hops = 0; hops < 16; hops++) {
    const name = refName(schema);
    if (name === undefined) return schema;
    schema = side.defs[name];
  }
  return schema;
}

function joinField(field: string, name: string): string {
  return field ? `${field}.${name}` : name;
}

/** The JSON types a schema accepts; `integer` is within `number`. No `type` accepts them all. */
function acceptedTypes(schema: JsonSchema): string[] {
  const type = schema.type;
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === 'string');
  return ALL_TYPES;
}

function accepts(types: string[], type: string): boolean {
  return types.includes(type) || (type === 'integer' && types.includes('number'));
}

function compareTypes(before: JsonSchema, after: JsonSchema, report: (aspect: SchemaAspect, detail: string) => void): void {
  const b = acceptedTypes(before);
  const a = acceptedTypes(after);
  const widens = b.every((t) => accepts(a, t));
  const narrows = a.every((t) => accepts(b, t));
  if (widens && narrows) return;
  const show = (s: JsonSchema, types: string[]) => (s.type === undefined ? 'any' : types.join(' | '));
  const detail = `${show(before, b)} → ${show(after, a)}`;
  report(narrows ? 'type-narrowed' : widens ? 'type-widened' : 'type-changed', detail);
}

function enumKey(schema: JsonSchema): 'enum' | 'const' | undefined {
  return Array.isArray(schema.enum) ? 'enum' : 'const' in schema ? 'const' : undefined;
}

/** The values a schema allows, as canonical JSON; undefined when it lists none. */
function enumValues(schema: JsonSchema): string[] | undefined {
  if (Array.isArray(schema.enum)) return schema.enum.map(canonicalJson);
  if ('const' in schema) return [canonicalJson(schema.const)];
  return undefined;
}

function compareEnums(before: JsonSchema, after: JsonSchema, report: (aspect: SchemaAspect, detail: string) => void): void {
  const b = enumValues(before);
  const a = enumValues(after);
  if (!b && !a) return;
  if (!b) return report('enum-narrowed', `now only ${a!.join(', ')}`);
  if (!a) return report('enum-widened', 'now any value');
  const removed = b.filter((v) => !a.includes(v));
  const added = a.filter((v) => !b.includes(v));
  if (removed.length) report('enum-narrowed', `${removed.join(', ')} removed`);
  if (added.length) report('enum-widened', `${added.join(', ')} added`);
}

function compareBounds(before: JsonSchema, after: JsonSchema, report: (aspect: SchemaAspect, keyword: string, detail: string) => void): void {
  const show = (v: unknown) => (v === undefined ? 'none' : JSON.stringify(v));
  const bound = (keyword: string, tighter: (b: number, a: number) => boolean) => {
    const b = typeof before[keyword] === 'number' ? (before[keyword] as number) : undefined;
    const a = typeof after[keyword] === 'number' ? (after[keyword] as number) : undefined;
    if (b === a) return;
    const tightened = b === undefined || (a !== undefined && tighter(b, a));
    report(tightened ? 'bounds-tightened' : 'bounds-widened', keyword, `${keyword} ${show(b)} → ${show(a)}`);
  };
  for (const keyword of LOWER_BOUNDS) bound(keyword, (b, a) => a > b);
  for (const keyword of UPPER_BOUNDS) bound(keyword, (b, a) => a < b);
  for (const keyword of CONSTRAINTS) {
    const b = before[keyword];
    const a = after[keyword];
    if (canonicalJson(b) === canonicalJson(a)) continue;
    report(a === undefined ? 'bounds-widened' : 'bounds-tightened', keyword, `${keyword} ${show(b)} → ${show(a)}`);
  }
  if (before.uniqueItems !== after.uniqueItems && (before.uniqueItems === true || after.uniqueItems === true)) {
    report(after.uniqueItems === true ? 'bounds-tightened' : 'bounds-widened', 'uniqueItems', `uniqueItems ${show(before.uniqueItems)} → ${show(after.uniqueItems)}`);
  }
  const closed = (s: JsonSchema) => s.additionalProperties === false;
  if (closed(before) !== closed(after)) {
    report(closed(after) ? 'bounds-tightened' : 'bounds-widened', 'additionalProperties', closed(after) ? 'unknown fields now rejected' : 'unknown fields now accepted');
  }
}

function compareProperties(
  before: JsonSchema,
  after: JsonSchema,
  field: string,
  at: JsonPath,
  direction: 'input' | 'output',
  report: Report,
  recurse: (name: string, sub: { before: unknown; after: unknown }) => void,
): void {
  const bProps = isObject(before.properties) ? before.properties : {};
  const aProps = isObject(after.properties) ? after.properties : {};
  const bRequired = new Set(Array.isArray(before.required) ? (before.required as string[]) : []);
  const aRequired = new Set(Array.isArray(after.required) ? (after.required as string[]) : []);
  const names = [...new Set([...Object.keys(bProps), ...Object.keys(aProps)])].sort();
  for (const name of names) {
    const here = joinField(field, name);
    if (!(name in aProps)) {
      // Nothing of the field is left to point at: its parent's `properties` key, or the object itself.
      const hasProperties = 'properties' in after;
      const sent = after.additionalProperties === false ? 'sending it is now rejected' : 'it is now ignored';
      report('field-removed', here, hasProperties ? [...at, 'properties'] : at, {
        key: hasProperties,
        prefer: [{ path: [...at, 'properties', name, 'until'] }, { path: [...at, 'properties', name], key: true }],
        ...(direction === 'input' ? { detail: sent } : {}),
      });
    } else if (!(name in bProps)) {
      report(aRequired.has(name) ? 'field-required' : 'field-added', here, [...at, 'properties', name], { key: true });
    } else {
      if (!bRequired.has(name) && aRequired.has(name)) report('field-required', here, [...at, 'required']);
      if (bRequired.has(name) && !aRequired.has(name)) {
        if ('required' in after) report('field-optional', here, [...at, 'required']);
        else report('field-optional', here, [...at, 'properties', name], { key: true });
      }
      recurse(name, { before: bProps[name], after: aProps[name] });
    }
  }
}
