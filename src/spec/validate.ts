/**
 * Checks each loaded file against its meta-schema (shipped in `src/spec/schemas/`, the same files editors
 * use) and turns every violation into a positioned diagnostic.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { diagnostic, type Diagnostic } from './diagnostics.js';
import { readMetaSchema } from './meta-schemas.js';
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

export function validatePlatform(source: SourceFile): Diagnostic[] {
  return check(validators().platform, source);
}

export function validateFace(source: SourceFile): Diagnostic[] {
  return check(validators().face, source);
}

function check(validate: ValidateFunction, source: SourceFile): Diagnostic[] {
  if (validate(source.value)) return [];
  // An error about a property name (it carries `propertyName`) is reported once, by its `propertyNames` error, at the key.
  return (validate.errors ?? []).filter((e) => e.keyword !== 'if' && e.propertyName === undefined).map((e) => toDiagnostic(e, source));
}

function toDiagnostic(error: ErrorObject, source: SourceFile): Diagnostic {
  const path = error.instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
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
