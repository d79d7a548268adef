/**
 * Turns named JSON Schemas into ts-morph statement structures (an interface for a plain object schema,
 * a type alias otherwise), and prints a list of structures as one source file in a single batch.
 */
import type { StatementStructures } from 'ts-morph';
import { tsMorph } from '../spec/ts-morph-on-demand.js';
import { StructureKind } from './structure-kinds.js';
import { memo } from '../memo/memo.js';
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
 * Prints each group of structures as its own run of TypeScript: the chunks of a large file (one per face)
 * that generate() formats and memoizes one by one, so a run reformats only the faces that changed.
 */
export function printChunks(groups: StatementStructures[][]): string[] {
  // Keyed by native JSON: the structures hold only strings, booleans, kinds and arrays of them (no number JSON
  // cannot spell), and a run keys every chunk of every face, which keyText would spell several times slower.
  return groups.filter((group) => group.length > 0).map((group) => memo('print', JSON.stringify(group), () => printStatements(group)));
}

/**
 * Prints structures as TypeScript text, straight from ts-morph's structure printers: no source file is
 * created (and parsed) for it, and prettier sets the layout afterwards either way. ts-morph is loaded on the
 * first chunk the memo does not hold.
 */
export function printStatements(statements: StatementStructures[]): string {
  return tsMorph().printStructure({ kind: StructureKind.SourceFile, statements });
}
