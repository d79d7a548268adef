/**
 * JSON Schema → TypeScript type text, for the subset face files use (types, enum, const, objects, arrays,
 * tuples, allOf / anyOf / oneOf and references to the face's named schemas). Anything else becomes
 * `unknown` rather than a wrong type.
 */
import { isObject } from '../spec/json-schema.js';
import type { JsonSchema } from '../spec/model.js';
import type { PropertySignature } from './print-declarations.js';

export interface TypeOptions {
  /** Maps a named schema (from `#/schemas/X` or `#/$defs/X`) to its type name. */
  refName: (name: string) => string;
  /**
   * The server's view: a property with a default is always present after validation, and `since`/`until`
   * properties are optional because some versions lack them.
   */
  server: boolean;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export function typeOf(schema: unknown, options: TypeOptions): string {
  if (schema === true || schema === undefined) return 'unknown';
  if (!isObject(schema)) return 'never';
  if (typeof schema.$ref === 'string') return options.refName(schema.$ref.split('/').pop()!);
  if ('const' in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (Array.isArray(schema.allOf)) return schema.allOf.map((s) => wrap(typeOf(s, options))).join(' & ');
  const union = (schema.oneOf ?? schema.anyOf) as unknown[] | undefined;
  if (Array.isArray(union)) return union.map((s) => wrap(typeOf(s, options))).join(' | ');
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : [];
  if (types.length === 0) return schema.properties ? objectType(schema, options) : 'unknown';
  return types.map((t) => wrap(singleType(t, schema, options))).join(' | ');
}

function singleType(type: string, schema: JsonSchema, options: TypeOptions): string {
  switch (type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      if (Array.isArray(schema.prefixItems)) return `[${schema.prefixItems.map((s) => typeOf(s, options)).join(', ')}]`;
      return `${wrap(typeOf(schema.items, options))}[]`;
    case 'object':
      return objectType(schema, options);
    default:
      return 'unknown';
  }
}

function objectType(schema: JsonSchema, options: TypeOptions): string {
  const members = propertySignatures(schema, options).map(
    (p) => `${docComment(p.docs)}${p.name}${p.hasQuestionToken ? '?' : ''}: ${p.type};`,
  );
  const extra = schema.additionalProperties;
  if (isObject(extra) || extra === true || (!schema.properties && extra === undefined)) {
    members.push(`[key: string]: ${isObject(extra) ? typeOf(extra, options) : 'unknown'};`);
  }
  return `{ ${members.join(' ')} }`;
}

/** The properties of an object schema as property signatures, with their JSDoc. */
export function propertySignatures(schema: JsonSchema, options: TypeOptions): PropertySignature[] {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return Object.entries(properties).map(([name, property]) => {
    const p = isObject(property) ? property : {};
    const versioned = p.since !== undefined || p.until !== undefined;
    const present = options.server ? (required.has(name) || p.default !== undefined) && !versioned : required.has(name);
    const docs = docLines(p);
    return {
      name: IDENTIFIER.test(name) ? name : JSON.stringify(name),
      type: typeOf(p, options),
      hasQuestionToken: !present,
      ...(docs.length ? { docs: [docs.join('\n')] } : {}),
    };
  });
}

/** JSDoc lines for a schema: its description, default and version range. */
export function docLines(schema: JsonSchema): string[] {
  const lines: string[] = [];
  if (typeof schema.description === 'string') lines.push(schema.description.trim());
  if (schema.default !== undefined) lines.push(`@default ${JSON.stringify(schema.default)}`);
  if (typeof schema.since === 'string') lines.push(`Since API version ${schema.since}.`);
  if (typeof schema.until === 'string') lines.push(`@deprecated Removed in API version ${schema.until}.`);
  return lines;
}

function docComment(docs: string[] | undefined): string {
  if (!docs?.length) return '';
  return `/** ${docs.join(' ').replace(/\*\//g, '*\\/').replace(/\n/g, ' ')} */ `;
}

/** Parenthesises a type unless it is one name, literal, array or object literal already. */
function wrap(type: string): string {
  if (/^[\w$."\[\]]+$/.test(type)) return type;
  if (type.startsWith('{') && closingBrace(type) === type.length - 1) return type;
  return `(${type})`;
}

function closingBrace(type: string): number {
  let depth = 0;
  for (let i = 0; i < type.length; i++) {
    if (type[i] === '{') depth++;
    else if (type[i] === '}' && --depth === 0) return i;
  }
  return -1;
}
