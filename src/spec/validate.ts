/**
 * Checks each loaded file against its meta-schema (shipped in `src/spec/schemas/`, the same files editors
 * use) and turns every violation into a positioned diagnostic.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { diagnostic, type Diagnostic } from './diagnostics.js';
import { pointerKeys } from './json-schema.js';
import { readMetaSchema } from './meta-schemas.js';
import { foldChoices } from './schema-problems.js';
import { suggestion } from './suggest.js';
import type { SourceFile } from './source.js';

const faceMetaSchema = readMetaSchema('face.schema.json');
const platformMetaSchema = readMetaSchema('platform.schema.json');

let compiled: { face: ValidateFunction; platform: ValidateFunction } | undefined;

function validators() {
  if (!compiled) {
    // Union types: a price is a number or a decimal string, and one `type` reports one error where anyOf reports three.
    // verbose: each error carries the schema it broke, whose properties say what a misspelt key may have meant.
    const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true, verbose: true });
    compiled = { face: ajv.compile(faceMetaSchema), platform: ajv.compile(platformMetaSchema) };
  }
  return compiled;
}

/**
 * `valid`: the value conforms. It may not while nothing is reported, when what it misses is in a part a YAML
 * syntax error left unread: a key the mapping around that part requires is not reported missing.
 */
export interface Validation {
  diagnostics: Diagnostic[];
  valid: boolean;
}

export function validatePlatform(source: SourceFile): Validation {
  return check(validators().platform, source);
}

export function validateFace(source: SourceFile): Validation {
  return check(validators().face, source);
}

function check(validate: ValidateFunction, source: SourceFile): Validation {
  if (validate(source.value)) return { diagnostics: [], valid: true };
  // An error about a property name (it carries `propertyName`) is reported once, by its `propertyNames` error, at the key.
  const errors = (validate.errors ?? []).filter((e) => e.keyword !== 'if' && e.propertyName === undefined && !aboutUnread(e, source));
  // A choice of forms is said once, in the words its schema describes it with, not once per form that did not fit.
  const diagnostics = foldChoices(errors).map(({ error, inside }) => (inside ? choiceDiagnostic(error, source) : toDiagnostic(error, source)));
  return { diagnostics, valid: false };
}

function choiceDiagnostic(error: ErrorObject, source: SourceFile): Diagnostic {
  const path = pointerKeys(error.instancePath);
  const shown = path.length ? path.join('.') : '(root)';
  const description = (error.parentSchema as { description?: unknown } | undefined)?.description;
  const detail = typeof description === 'string' ? `${shown}: ${description[0]!.toLowerCase()}${description.slice(1)}` : `${shown} ${error.message ?? 'is invalid'}`;
  return diagnostic('schema-violation', source.at(path), { detail });
}

/** An error about the mapping that held an unread part (a key it requires, how many it has), other than a key it has. */
function aboutUnread(error: ErrorObject, source: SourceFile): boolean {
  if (error.keyword === 'additionalProperties' || error.keyword === 'propertyNames') return false;
  const path = pointerKeys(error.instancePath);
  return source.holes.some((hole) => hole.parent !== undefined && hole.parent.length === path.length && hole.parent.every((s, i) => String(s) === path[i]));
}

function toDiagnostic(error: ErrorObject, source: SourceFile): Diagnostic {
  const path = pointerKeys(error.instancePath);
  const shown = path.length ? path.join('.') : '(root)';
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties') {
    const key = String(params.additionalProperty);
    const known = Object.keys((error.parentSchema as { properties?: object } | undefined)?.properties ?? {});
    return diagnostic('schema-violation', source.at([...path, key], true), { detail: `${shown}: unknown property "${key}".${suggestion(key, known)}` });
  }
  if (error.keyword === 'propertyNames') {
    const key = String(params.propertyName);
    return diagnostic('schema-violation', source.at([...path, key], true), { detail: `${shown}: name "${key}" ${error.message}` });
  }
  if (error.keyword === 'required') {
    return diagnostic('schema-violation', source.at(path, true), { detail: `${shown}: missing required property "${String(params.missingProperty)}"` });
  }
  const allowed = error.keyword === 'enum' ? `: ${(params.allowedValues as unknown[]).join(', ')}` : '';
  return diagnostic('schema-violation', source.at(path), { detail: `${shown} ${error.message ?? 'is invalid'}${allowed}` });
}
