/**
 * A self-contained schema (named schemas under `$defs`, as `materialize` makes them) with every `$ref`
 * replaced by the schema it names, and no `$defs` left: many MCP clients and model APIs resolve no
 * reference (Gemini refuses `$defs`, google-gemini/gemini-cli#13326). A schema that refers to itself cannot
 * be written out; where a reference would enter a named schema already being expanded, it becomes a schema
 * of the same type that says what it stands for, which accepts more than the exact one (the server still
 * validates the call against that).
 */
import { isObject } from '../json-schema.js';
import type { JsonSchema } from '../model.js';

const DEFS_PREFIX = '#/$defs/';

/** Keywords that say something about a value without constraining it: kept beside a reference's target. */
const ANNOTATIONS = new Set(['description', 'title', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly', '$comment']);

export function inlineRefs(schema: JsonSchema): JsonSchema {
  const defs = isObject(schema.$defs) ? (schema.$defs as Record<string, JsonSchema>) : {};
  const { $defs: _defs, ...root } = schema;
  return inline(root, defs, []) as JsonSchema;
}

function inline(node: unknown, defs: Record<string, JsonSchema>, expanding: string[]): unknown {
  if (Array.isArray(node)) return node.map((item) => inline(item, defs, expanding));
  if (!isObject(node)) return node;
  const ref = node.$ref;
  const name = typeof ref === 'string' && ref.startsWith(DEFS_PREFIX) ? ref.slice(DEFS_PREFIX.length) : undefined;
  if (name === undefined || !defs[name]) return mapValues(node, defs, expanding);
  const { $ref: _ref, ...siblings } = node;
  const rest = mapValues(siblings, defs, expanding);
  if (expanding.includes(name)) return nested(name, defs[name]!, rest);
  const target = inline(defs[name], defs, [...expanding, name]) as JsonSchema;
  // Beside a reference, 2020-12 applies both; annotations can simply sit on the target (the reference's win).
  if (Object.keys(rest).every((key) => ANNOTATIONS.has(key))) return { ...target, ...rest };
  return { ...rest, allOf: [...(Array.isArray(rest.allOf) ? rest.allOf : []), target] };
}

/** The values of a schema's keywords, inlined; `properties` and the like are maps of schemas, handled alike. */
function mapValues(node: JsonSchema, defs: Record<string, JsonSchema>, expanding: string[]): JsonSchema {
  const out: JsonSchema = {};
  // `const`, `enum`, `default` and `examples` hold values, not schemas: a `$ref` key there is data.
  for (const [key, value] of Object.entries(node)) out[key] = VALUES.has(key) ? value : inline(value, defs, expanding);
  // A property's schema may be `true` or `false`; MCP's ToolSchema wants an object for each.
  if (isObject(out.properties)) {
    out.properties = Object.fromEntries(Object.entries(out.properties).map(([name, schema]) => [name, schema === true ? {} : schema === false ? { not: {} } : schema]));
  }
  return out;
}

const VALUES = new Set(['const', 'enum', 'default', 'examples']);

/** The first `$ref` left anywhere in a schema (under any keyword but those holding values), if any. */
export function firstRef(node: unknown): string | undefined {
  if (Array.isArray(node)) {
    for (const item of node) {
      const found = firstRef(item);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (!isObject(node)) return undefined;
  if (typeof node.$ref === 'string') return node.$ref;
  for (const [key, value] of Object.entries(node)) {
    const found = VALUES.has(key) ? undefined : firstRef(value);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Where a named schema would contain itself: its type, and words for the rest. */
function nested(name: string, target: JsonSchema, rest: JsonSchema): JsonSchema {
  const said = typeof rest.description === 'string' ? `${rest.description} ` : '';
  return {
    ...(target.type === undefined ? {} : { type: target.type }),
    ...rest,
    description: `${said}A ${name}, nested: the same shape as the ${name} that contains it.`,
  };
}
