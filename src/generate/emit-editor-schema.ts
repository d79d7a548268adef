/**
 * `generated/editor/face.schema.json`: the face language's meta-schema as this catalogue's editors should
 * read it (face files point at it on their first line, `# yaml-language-server: $schema=...`). Beside the
 * shapes of `src/spec/schemas/face.schema.json` it knows the catalogue: every action must say what a call does
 * (`effect`, `external`, and `idempotent` unless it reads, which lint requires), `scope` completes from the platform's
 * scopes, `since`/`until` from its versions, `emits` from the declared event types, `errors` from the declared codes, a fixture step's
 * `call` from the actions and its `error` from the codes, and payload, result and
 * event data schemas are checked as the JSON Schema 2020-12 that ajv's strict mode accepts (an unknown keyword
 * or type is flagged while typing; properties and the alternatives of a oneOf/anyOf take the face language's `since`
 * and `until`).
 */
import { catalogErrors } from '../spec/action-errors.js';
import { knownKeywords } from '../spec/face-ajv.js';
import { readMetaSchema } from '../spec/meta-schemas.js';
import type { Catalog, JsonSchema } from '../spec/model.js';

export const EDITOR_SCHEMA_PATH = 'editor/face.schema.json';

const SIMPLE_TYPES = ['array', 'boolean', 'integer', 'null', 'number', 'object', 'string'];
/** The formats ajv-formats checks (what a face may name). */
const FORMATS = ['date', 'time', 'date-time', 'duration', 'uri', 'uri-reference', 'uri-template', 'url', 'email', 'hostname', 'ipv4', 'ipv6', 'regex', 'uuid', 'json-pointer', 'relative-json-pointer', 'byte', 'int32', 'int64', 'float', 'double', 'password', 'binary'];

export function emitEditorSchema(catalog: Catalog): string {
  const meta = structuredClone(readMetaSchema('face.schema.json')) as JsonSchema & { $defs: Record<string, JsonSchema>; properties: Record<string, JsonSchema> };
  const { platform } = catalog;
  const versions = platform.versions.map((v) => v.date);
  const events = catalog.faces.flatMap((f) => f.events.map((e) => e.type)).sort();
  const action = meta.$defs.action as { properties: Record<string, JsonSchema>; required: string[]; allOf?: JsonSchema[] };
  const schema = { $ref: '#/$defs/jsonSchema' };

  meta.$id = 'https://unified-dispatch.dev/schemas/editor/face.schema.json';
  meta.description = `${meta.description as string} This copy knows the catalogue's scopes, versions and event types.`;
  meta.$defs.date = { ...meta.$defs.date, enum: versions };
  action.properties.scope = { ...action.properties.scope, enum: platform.scopes.map((s) => s.name) };
  action.properties.emits = { ...action.properties.emits, items: { type: 'string', enum: events } };
  const codes = [...new Set(catalogErrors(catalog).map((e) => e.code))].sort();
  action.properties.errors = { ...action.properties.errors, items: { type: 'string', enum: codes } };
  const step = meta.$defs.triggerStep as { properties: Record<string, JsonSchema> };
  step.properties.call = { ...step.properties.call, enum: catalog.faces.flatMap((f) => f.actions.map((a) => a.id)).sort() };
  step.properties.error = { ...step.properties.error, enum: codes };
  for (const key of ['payload', 'result']) action.properties[key] = { ...action.properties[key], ...schema };
  // What a call does is lint's to require (effect-missing and the like: `dispatch diff` reads bases older
  // than it); an editor flags it while typing.
  action.required = [...action.required, 'effect', 'external'];
  action.allOf = [
    { if: { required: ['effect'], properties: { effect: { enum: ['write', 'destroy'] } } }, then: { required: ['idempotent'] } },
    { if: { required: ['effect'], properties: { effect: { const: 'read' } } }, then: { properties: { idempotent: { const: true, description: 'A read is idempotent.' } } } },
  ];
  meta.properties.schemas = { ...meta.properties.schemas, additionalProperties: schema };
  const declared = meta.properties.events as { additionalProperties: { properties: Record<string, JsonSchema> } };
  declared.additionalProperties.properties.data = { ...declared.additionalProperties.properties.data, ...schema };
  meta.$defs.jsonSchema = jsonSchemaDefinition();
  meta.$defs.subschema = { anyOf: [{ type: 'boolean' }, schema] };
  return `${JSON.stringify(meta, null, 2)}\n`;
}

/**
 * JSON Schema 2020-12 as the face language takes it: the keywords ajv knows and nothing else (it runs
 * strict), those of the vocabularies with the shape of their value, plus the face language's `since` and `until`.
 */
function jsonSchemaDefinition(): JsonSchema {
  const sub = { $ref: '#/$defs/subschema' };
  const map = { type: 'object', additionalProperties: sub };
  const list = { type: 'array', items: sub, minItems: 1 };
  const count = { type: 'integer', minimum: 0 };
  const strings = { type: 'array', items: { type: 'string' }, uniqueItems: true };
  const keywords: Record<string, JsonSchema> = {
    $schema: { type: 'string' },
    $id: { type: 'string' },
    $ref: { type: 'string', description: 'A schema of this face: "#/schemas/<Name>".' },
    $defs: map,
    $comment: { type: 'string' },
    type: { anyOf: [{ enum: SIMPLE_TYPES }, { type: 'array', items: { enum: SIMPLE_TYPES }, uniqueItems: true }] },
    enum: { type: 'array' },
    const: {},
    properties: map,
    patternProperties: map,
    additionalProperties: sub,
    propertyNames: sub,
    required: strings,
    dependentRequired: { type: 'object', additionalProperties: strings },
    dependentSchemas: map,
    minProperties: count,
    maxProperties: count,
    items: sub,
    prefixItems: list,
    contains: sub,
    minContains: count,
    maxContains: count,
    minItems: count,
    maxItems: count,
    uniqueItems: { type: 'boolean' },
    unevaluatedItems: sub,
    unevaluatedProperties: sub,
    allOf: list,
    anyOf: list,
    oneOf: list,
    not: sub,
    if: sub,
    then: sub,
    else: sub,
    minLength: count,
    maxLength: count,
    pattern: { type: 'string', format: 'regex' },
    format: { anyOf: [{ enum: FORMATS }, { type: 'string' }] },
    minimum: { type: 'number' },
    maximum: { type: 'number' },
    exclusiveMinimum: { type: 'number' },
    exclusiveMaximum: { type: 'number' },
    multipleOf: { type: 'number', exclusiveMinimum: 0 },
    title: { type: 'string' },
    description: { type: 'string' },
    default: {},
    examples: { type: 'array' },
    deprecated: { type: 'boolean' },
    readOnly: { type: 'boolean' },
    writeOnly: { type: 'boolean' },
    contentEncoding: { type: 'string' },
    contentMediaType: { type: 'string' },
    contentSchema: sub,
    since: { $ref: '#/$defs/date', description: 'The first API version this property (or this alternative of a oneOf/anyOf) is served in.' },
    until: { $ref: '#/$defs/date', description: 'The first API version this property (or this alternative of a oneOf/anyOf) is no longer served in (a breaking change).' },
  };
  // Every other keyword ajv accepts (nullable, definitions, dependencies, $dynamicRef, ...) with any value:
  // the editor must not refuse what the generator takes.
  for (const keyword of knownKeywords().sort()) keywords[keyword] ??= {};
  return { type: 'object', additionalProperties: false, properties: keywords };
}
