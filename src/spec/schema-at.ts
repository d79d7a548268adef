/**
 * What a materialized schema (named schemas under `$defs`) says of the value at a path inside what it
 * describes: the subschemas that may describe it there, through `#/$defs/…` references and the branches of
 * `allOf`/`oneOf`/`anyOf`. The rules over event fixtures read a result's fields and a payload's with it.
 */
import { isObject } from './json-schema.js';
import type { JsonSchema } from './model.js';

const DEFS_PREFIX = '#/$defs/';

/** The subschemas that may describe the value at `path` (object keys, array indexes); none when no branch has it. */
export function schemasAt(root: JsonSchema, path: readonly (string | number)[]): JsonSchema[] {
  let here = expand(root, root);
  for (const step of path) here = here.flatMap((node) => childSchemas(node, String(step))).flatMap((node) => expand(root, node));
  return here;
}

/** The property names the schemas describe: what a misspelt field may have meant. */
export function fieldNames(schemas: readonly JsonSchema[]): string[] {
  return [...new Set(schemas.flatMap((node) => (isObject(node.properties) ? Object.keys(node.properties) : [])))];
}

/** The schema and its branches, each reference followed (a reference that leads back to one already seen is left). */
function expand(root: JsonSchema, node: unknown, seen = new Set<unknown>()): JsonSchema[] {
  if (!isObject(node) || seen.has(node)) return [];
  seen.add(node);
  const out = [node];
  if (typeof node.$ref === 'string' && node.$ref.startsWith(DEFS_PREFIX)) {
    const defs = isObject(root.$defs) ? root.$defs : {};
    out.push(...expand(root, defs[node.$ref.slice(DEFS_PREFIX.length)], seen));
  }
  for (const keyword of ['allOf', 'oneOf', 'anyOf']) {
    const branches = node[keyword];
    if (Array.isArray(branches)) for (const branch of branches) out.push(...expand(root, branch, seen));
  }
  return out;
}

function childSchemas(node: JsonSchema, step: string): unknown[] {
  const out: unknown[] = [];
  if (isObject(node.properties) && Object.hasOwn(node.properties, step)) out.push(node.properties[step]);
  else if (isObject(node.additionalProperties)) out.push(node.additionalProperties);
  if (/^\d+$/.test(step)) {
    const prefix = Array.isArray(node.prefixItems) ? node.prefixItems[Number(step)] : undefined;
    if (prefix !== undefined) out.push(prefix);
    else if (isObject(node.items)) out.push(node.items);
  }
  return out;
}
