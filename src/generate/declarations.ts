/**
 * Turns named JSON Schemas into ts-morph statement structures (an interface for a plain object schema,
 * a type alias otherwise), and groups them into the chunks of a file.
 */
import type { StatementStructures } from 'ts-morph';
import { StructureKind } from './structure-kinds.js';
import { isObject } from '../spec/json-schema.js';
import type { JsonSchema } from '../spec/model.js';
import { docLines, propertySignatures, typeOf, type TypeOptions } from './schema-to-type.js';

const COMBINATORS = ['allOf', 'anyOf', 'oneOf', 'const', 'enum', '$ref'];

export function declaration(name: string, schema: JsonSchema, options: TypeOptions, extraDocs: string[] = []): StatementStructures {
  const lines = [...extraDocs, ...docLines(schema)];
  const docs = lines.length ? [lines.join('\n')] : [];
  const plainObject = schema.type === 'object' && !COMBINATORS.some((k) => k in schema) && !isObject(schema.additionalProperties);
  if (plainObject) {
    return { kind: StructureKind.Interface, name, isExported: true, docs, properties: propertySignatures(schema, options) };
  }
  return { kind: StructureKind.TypeAlias, name, isExported: true, docs, type: typeOf(schema, options) };
}

/**
 * The groups of structures that are the chunks of a large file (one per face), without the empty ones:
 * generate() prints, formats and memoizes them one by one, so a run reprints only the faces that changed.
 */
export const statementChunks = (groups: StatementStructures[][]): StatementStructures[][] => groups.filter((group) => group.length > 0);
