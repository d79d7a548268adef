/**
 * An object schema said without `oneOf`, `anyOf` or `allOf` at its root, which model APIs refuse there
 * (Anthropic: "input_schema does not support oneOf, allOf, or anyOf at the top level"): one object with
 * every property of every branch. It never accepts less than the exact schema, so a model is never kept
 * from a valid call: a property is required only where every alternative requires it, closed only where
 * every alternative is, and a branch's other keywords are dropped. Where that loses a rule, `exact` is false
 * and payload-rules.ts words what was lost for the tool's description; the server validates the exact schema.
 */
import { canonicalJson, isObject } from '../json-schema.js';
import type { JsonSchema } from '../model.js';

export const COMBINATORS = ['allOf', 'anyOf', 'oneOf'] as const;

/** The keywords a flat object is made of; any other keyword of a branch is lost in flattening. */
const SHAPE = new Set(['type', 'properties', 'required', 'additionalProperties', 'description', 'title', '$comment', ...COMBINATORS]);

/** Root keywords that only say how to pick a branch: meaningless once the branches are one object. */
const BRANCH_PICKERS = new Set(['discriminator']);

export interface Flattened {
  schema: JsonSchema;
  /** Accepts exactly what the schema does. */
  exact: boolean;
}

/** An object's properties, required names and closedness, as the branches of a root add up to. */
interface Part {
  properties: Map<string, JsonSchema>;
  required: Set<string>;
  closed: boolean;
  exact: boolean;
}

export function flattenRoot(schema: JsonSchema): Flattened {
  if (!COMBINATORS.some((keyword) => keyword in schema)) return { schema, exact: true };
  const part = partOf(schema) ?? { properties: new Map(), required: new Set<string>(), closed: false, exact: false };
  const kept = Object.fromEntries(Object.entries(schema).filter(([key]) => (!SHAPE.has(key) && !BRANCH_PICKERS.has(key)) || key === 'description' || key === 'title'));
  const flat: JsonSchema = { type: 'object', ...kept };
  if (part.properties.size) flat.properties = Object.fromEntries(part.properties);
  const required = [...part.required].filter((name) => part.properties.has(name) || !part.closed);
  if (required.length) flat.required = required;
  if (part.closed) flat.additionalProperties = false;
  else if (schema.additionalProperties !== undefined) flat.additionalProperties = schema.additionalProperties;
  return { schema: flat, exact: part.exact };
}

/** What an object-shaped schema adds up to; undefined when it admits no object (a branch of another type). */
function partOf(schema: unknown): Part | undefined {
  if (schema === true) return { properties: new Map(), required: new Set(), closed: false, exact: true };
  if (!isObject(schema)) return undefined;
  const types = schema.type === undefined ? undefined : [schema.type].flat();
  if (types && !types.includes('object')) return undefined;
  const own: Part = {
    properties: new Map(Object.entries(isObject(schema.properties) ? (schema.properties as Record<string, JsonSchema>) : {})),
    required: new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []),
    closed: schema.additionalProperties === false && schema.patternProperties === undefined,
    exact: true,
  };
  let part = own;
  for (const keyword of COMBINATORS) {
    const branches = Array.isArray(schema[keyword]) ? (schema[keyword] as unknown[]) : undefined;
    if (!branches) continue;
    const parts = branches.map((branch) => partOf(branch));
    const objects = parts.filter((p): p is Part => p !== undefined);
    if (keyword === 'allOf' || objects.length === 1) {
      // One alternative left is all of them: a branch that admits no object cannot match an object root.
      const lost = keyword === 'allOf' ? objects.length < parts.length : false;
      part = objects.reduce(both, { ...part, exact: part.exact && !lost && lostKeywords(branches).length === 0 });
    } else {
      part = both(part, either(objects));
      part.exact = false;
    }
  }
  return part;
}

/** Keywords of the branches that a flat object does not keep. */
export function lostKeywords(branches: unknown[]): string[] {
  return branches.flatMap((branch) => (isObject(branch) ? Object.keys(branch).filter((key) => !SHAPE.has(key)) : []));
}

/** Both apply: every property of either (a property of both must match both), every required name. */
function both(a: Part, b: Part): Part {
  const properties = new Map(a.properties);
  for (const [name, schema] of b.properties) {
    const other = properties.get(name);
    properties.set(name, other === undefined || same(other, schema) ? schema : { allOf: [other, schema] });
  }
  // Closed by one side, the union admits the other's properties too: more than exact, never less.
  const closedExactly = [a, b].filter((p) => p.closed).every((p) => p.properties.size === properties.size);
  return { properties, required: new Set([...a.required, ...b.required]), closed: a.closed || b.closed, exact: a.exact && b.exact && closedExactly };
}

/** Some apply: a property may match any alternative that has it, and is required where all require it. */
function either(parts: Part[]): Part {
  const names = [...new Set(parts.flatMap((p) => [...p.properties.keys()]))];
  const properties = new Map<string, JsonSchema>();
  for (const name of names) {
    const schemas = parts.flatMap((p) => (p.properties.has(name) ? [p.properties.get(name)!] : []));
    const distinct = schemas.filter((schema, i) => schemas.findIndex((other) => same(other, schema)) === i);
    // An open alternative without the property lets it be anything.
    const free = parts.some((p) => !p.closed && !p.properties.has(name));
    const description = distinct.map((s) => s.description).find((d) => typeof d === 'string');
    properties.set(name, free ? (description === undefined ? {} : { description }) : distinct.length === 1 ? distinct[0]! : (constants(distinct) ?? { anyOf: distinct }));
  }
  const required = names.filter((name) => parts.every((p) => p.required.has(name)));
  return { properties, required: new Set(required), closed: parts.length > 0 && parts.every((p) => p.closed), exact: false };
}

/**
 * Alternatives that are each one constant of one type (a discriminator's tag) as one enum, which model
 * clients show as a choice; each constant's description is kept beside it.
 */
function constants(schemas: JsonSchema[]): JsonSchema | undefined {
  const plain = schemas.every((s) => 'const' in s && s.type === schemas[0]!.type && Object.keys(s).every((key) => ['type', 'const', 'description'].includes(key)));
  if (!plain) return undefined;
  const described = schemas.filter((s) => typeof s.description === 'string');
  return {
    ...(schemas[0]!.type === undefined ? {} : { type: schemas[0]!.type }),
    enum: schemas.map((s) => s.const),
    ...(described.length ? { description: described.map((s) => `\`${String(s.const)}\`: ${String(s.description)}`).join(' ') } : {}),
  };
}

const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);
