/**
 * Words for what flattening a payload's root loses (flatten.ts): which branches of its `oneOf`, `anyOf` or
 * `allOf` a payload must match, each said by the fields it fixes (`const`, a narrower `enum`), the fields it
 * requires, the fields it allows when closed, and its other keywords as JSON. The tool's description carries
 * them, so a model can send a payload the server accepts.
 */
import { canonicalJson, isObject } from '../json-schema.js';
import type { JsonSchema } from '../model.js';
import { COMBINATORS, lostKeywords } from './flatten.js';

const LEADS = {
  allOf: 'each of these',
  anyOf: 'at least one of these',
  oneOf: 'exactly one of these',
} as const;

export function payloadRules(schema: JsonSchema, flat: JsonSchema): string {
  const clauses: string[] = [];
  for (const keyword of COMBINATORS) {
    const branches = Array.isArray(schema[keyword]) ? (schema[keyword] as unknown[]) : [];
    // A branch that admits no object never matches a payload: nothing to say of it.
    const said = branches.filter((branch) => branch === true || (isObject(branch) && admitsObject(branch))).map((branch) => branchWords(branch, flat));
    if (said.length) clauses.push(`${LEADS[keyword]}: ${said.map((words, i) => `(${i + 1}) ${words}`).join('; ')}`);
  }
  return clauses.length ? `The payload must also match ${clauses.join('; and ')}.` : '';
}

function admitsObject(schema: JsonSchema): boolean {
  return schema.type === undefined || [schema.type].flat().includes('object');
}

const code = (name: string) => `\`${name}\``;
const json = (value: unknown) => JSON.stringify(value);

function branchWords(branch: unknown, flat: JsonSchema): string {
  if (!isObject(branch)) return 'any object';
  const words: string[] = [];
  const properties = isObject(branch.properties) ? (branch.properties as Record<string, JsonSchema>) : {};
  const flatProperties = isObject(flat.properties) ? (flat.properties as Record<string, JsonSchema>) : {};
  for (const [name, property] of Object.entries(properties)) {
    if (!isObject(property)) continue;
    if ('const' in property) words.push(`${code(name)} is ${json(property.const)}`);
    else if (Array.isArray(property.enum) && canonicalJson(property.enum) !== canonicalJson(flatProperties[name]?.enum)) {
      words.push(`${code(name)} is one of ${property.enum.map(json).join(', ')}`);
    }
  }
  const alwaysRequired = new Set(Array.isArray(flat.required) ? (flat.required as string[]) : []);
  const required = (Array.isArray(branch.required) ? (branch.required as string[]) : []).filter((name) => !alwaysRequired.has(name));
  if (required.length) words.push(`with ${required.map(code).join(', ')}`);
  const names = Object.keys(properties);
  if (branch.additionalProperties === false && names.length < Object.keys(flatProperties).length) {
    words.push(names.length ? `no field but ${names.map(code).join(', ')}` : 'no field');
  }
  const rest = [...lostKeywords([branch]), ...COMBINATORS.filter((keyword) => keyword in branch)];
  if (rest.length) words.push(json(Object.fromEntries(rest.map((key) => [key, branch[key]]))));
  const title = typeof branch.title === 'string' ? `${branch.title}: ` : '';
  return title + (words.join(', ') || 'any object as above');
}
