/**
 * ajv for a face's schemas, configured as the generated validators are (strict, all errors, defaults, a oneOf's
 * `discriminator` picking its one branch so errors name that branch's fields, standalone source).
 *
 * `faceValidators` compiles the schemas that become `generated/server/validators/<face>.js` (every payload
 * variant, action by action, then every event's data) in one instance, always in that order and nothing
 * else: ajv names its functions by compile order, so the printed code depends on the face alone, whether
 * lint compiled it in this run or the validators emitter does. Lint checks results and examples in a
 * second instance (`resultValidator`) that is never printed.
 *
 * Schemas are checked against the JSON Schema 2020-12 meta-schema by one instance shared by every face:
 * each instance would otherwise compile the meta-schema for itself, which costs more than compiling the
 * payloads of a small face.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import { keyText } from '../memo/memo.js';
import type { Face, JsonSchema } from './model.js';
import { schemaProblems, type SchemaProblem } from './schema-problems.js';

const OPTIONS = { strict: true, allErrors: true, useDefaults: true, discriminator: true, logger: false, code: { source: true, esm: true, lines: true } } as const;

export interface FaceValidators {
  ajv: Ajv2020;
  /** Validator name → why ajv refused its schema; the others are compiled in `ajv`. */
  refused: Map<string, Error>;
}

const validators = new WeakMap<Face, FaceValidators>();
const checkers = new WeakMap<Face, { ajv: Ajv2020; compiled: Map<string, ValidateFunction | Error> }>();
let metaAjv: Ajv2020 | undefined;

function newAjv(code: typeof OPTIONS.code | { optimize: false } = OPTIONS.code, extra: { addUsedSchema?: boolean } = {}): Ajv2020 {
  const ajv = new Ajv2020({ ...OPTIONS, ...extra, code, validateSchema: false });
  addFormats.default(ajv);
  return ajv;
}

export function faceValidators(face: Face): FaceValidators {
  let compiled = validators.get(face);
  if (compiled) return compiled;
  compiled = { ajv: newAjv(), refused: new Map() };
  const schemas = [
    ...face.actions.flatMap((a) => a.variants.map((v) => [v.validator, v.schema] as const)),
    ...face.events.map((e) => [e.validator, e.dataSchema] as const),
  ];
  for (const [name, schema] of schemas) {
    try {
      assertValidSchema(schema);
      compiled.ajv.addSchema(schema, name);
      compiled.ajv.getSchema(name);
    } catch (error) {
      compiled.ajv.removeSchema(name);
      compiled.refused.set(name, error as Error);
    }
  }
  validators.set(face, compiled);
  return compiled;
}

/**
 * A result schema of the face compiled for lint, to check it and the examples: the validator, or why ajv
 * refused it (thrown). Actions that answer the same schema (a resource's create, get and update) share one
 * compilation; it is run, never printed, so no source is kept and no optimizing pass runs over it.
 */
export function resultValidator(face: Face, schema: JsonSchema): ValidateFunction {
  let checker = checkers.get(face);
  if (!checker) {
    // Nothing registered by `$id`: two actions may answer the same schema, and each compiles on its own terms.
    checker = { ajv: newAjv({ optimize: false }, { addUsedSchema: false }), compiled: new Map() };
    checkers.set(face, checker);
  }
  // As the memo spells keys: `.inf` and `.nan` (which YAML can write) are not `null`.
  const text = keyText(schema);
  let compiled = checker.compiled.get(text);
  if (!compiled) {
    try {
      assertValidSchema(schema);
      compiled = checker.ajv.compile(schema);
    } catch (error) {
      compiled = error as Error;
    }
    checker.compiled.set(text, compiled);
  }
  if (compiled instanceof Error) throw compiled;
  return compiled;
}

/** A schema's refusal by the 2020-12 meta-schema: each mistake, where it is in the schema and what it is. */
export class SchemaError extends Error {
  constructor(readonly problems: readonly SchemaProblem[]) {
    super(`schema is invalid: ${problems.map((p) => p.detail).join(' ')}`);
  }
}

/** Throws a SchemaError when `schema` breaks the 2020-12 meta-schema. */
export function assertValidSchema(schema: unknown): void {
  metaAjv ??= new Ajv2020({ ...OPTIONS, code: {}, verbose: true });
  if (metaAjv.validateSchema(schema as object)) return;
  throw new SchemaError(schemaProblems(metaAjv.errors ?? []));
}

/** Every keyword ajv knows, JSON Schema's and the face language's annotations: what an unknown one may have meant. */
export function knownKeywords(): string[] {
  metaAjv ??= new Ajv2020({ ...OPTIONS, code: {}, verbose: true });
  return Object.keys(metaAjv.RULES.keywords);
}
