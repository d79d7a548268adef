/**
 * Turns named JSON Schemas into declarations (an interface for a plain object schema, a type alias
 * otherwise), and prints the chunks of a file.
 */
import { StructureKind } from './structure-kinds.js';
import { isObject } from '../spec/json-schema.js';
import type { JsonSchema } from '../spec/model.js';
import type { Formatted } from './format.js';
import { printStatements, type Declaration, type InterfaceDeclaration, type TypeAliasDeclaration } from './print-declarations.js';
import { docLines, propertySignatures, typeOf, type TypeOptions } from './schema-to-type.js';

const COMBINATORS = ['allOf', 'anyOf', 'oneOf', 'const', 'enum', '$ref'];

export function declaration(name: string, schema: JsonSchema, options: TypeOptions, extraDocs: string[] = []): InterfaceDeclaration | TypeAliasDeclaration {
  const lines = [...extraDocs, ...docLines(schema)];
  const docs = lines.length ? [lines.join('\n')] : [];
  const plainObject = schema.type === 'object' && !COMBINATORS.some((k) => k in schema) && !isObject(schema.additionalProperties);
  if (plainObject) {
    return { kind: StructureKind.Interface, name, isExported: true, docs, properties: propertySignatures(schema, options) };
  }
  return { kind: StructureKind.TypeAlias, name, isExported: true, docs, type: typeOf(schema, options) };
}

/** A group of statements printed, or '' for none: a chunk of a large file, such as one face's types. */
export const printedGroup = (group: (Declaration | string)[]): string => (group.length > 0 ? printStatements(group) : '');

/** The printed groups that are the chunks of a file, without the empty ones: generate() joins them by a blank line. */
export const statementChunks = (printed: string[]): Formatted[] => printed.filter((text) => text !== '').map((formatted) => ({ formatted }));
