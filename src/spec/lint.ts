/**
 * Semantic rules over a resolved face: scopes, tiers and versions that exist, references that resolve,
 * schemas that ajv (strict) accepts, examples that match them, events with names of the right form and
 * data schemas ajv accepts, and the 90-day notice for breaking changes. Each rule reports at the node it is about.
 * Newer rules live one per file under rules/ (units, prices, effects, MCP tools) and are called from lintFace.
 */
import type { ValidateFunction } from 'ajv';
import { sha256 } from '../hash.js';
import { memo } from '../memo/memo.js';
import { diagnostic, type Diagnostic } from './diagnostics.js';
import { assertValidSchema, faceValidators, knownKeywords, resultValidator, SchemaError } from './face-ajv.js';
import { isDated, isObject, pointerKeys, SCHEMA_REF_PREFIX, UNIONS, walkSchema } from './json-schema.js';
import type { Action, EventType, Face, JsonSchema, Platform } from './model.js';
import { NOTICE_DAYS, noticeDays } from './notice.js';
import type { RawFace } from './resolve.js';
import { valueProblems } from './schema-problems.js';
import { suggestion } from './suggest.js';
import { effects } from './rules/effects.js';
import { errorTypeMismatch } from './rules/error-type.js';
import { invalidPrice } from './rules/invalid-price.js';
import { mcpTools } from './rules/mcp-tools.js';
import { typeNameClash } from './rules/type-name-clash.js';
import { unknownUnit } from './rules/unknown-unit.js';
import type { JsonPath, SourceFile } from './source.js';

const EVENT_NAME = /^[a-z][a-zA-Z0-9]*\.[a-z][a-zA-Z0-9]*\.[a-z][a-zA-Z0-9]*$/;

interface BreakingChange {
  version: string;
  change: string;
  at: JsonPath;
}

export function lintPlatform(platform: Platform, source: SourceFile): Diagnostic[] {
  const out: Diagnostic[] = [];
  if (!platform.versions.some((v) => v.status === 'stable')) out.push(diagnostic('no-stable-version', source.at(['versions'])));
  const raw = (source.value as { versions: { date: string }[] }).versions;
  raw.forEach((v, i) => {
    if (raw.findIndex((o) => o.date === v.date) !== i) out.push(diagnostic('duplicate-version', source.at(['versions', i, 'date']), { version: v.date }));
  });
  return out;
}

export function lintFace(face: Face, source: SourceFile, platform: Platform, otherErrorCodes: Map<string, string>): Diagnostic[] {
  const out: Diagnostic[] = [];
  const raw = source.value as RawFace;
  const known = new Set(platform.versions.map((v) => v.date));
  const tiers = new Set(platform.tiers.map((t) => t.name));
  const scopes = new Set(platform.scopes.map((s) => s.name));
  const breaking: BreakingChange[] = [];
  const checkVersion = (version: string | undefined, at: JsonPath) => {
    if (version !== undefined && !known.has(version)) out.push(diagnostic('unknown-version', source.at(at), { version, hint: suggestion(version, known) }));
  };
  const checkTiers = (rate: Record<string, unknown> | undefined, at: JsonPath) => {
    for (const tier of Object.keys(rate ?? {})) {
      if (!tiers.has(tier)) out.push(diagnostic('unknown-tier', source.at([...at, tier], true), { tier, hint: suggestion(tier, tiers) }));
    }
  };

  checkVersion(face.since, ['since']);
  checkTiers(raw.rate, ['rate']);
  for (const [i, error] of face.errors.entries()) {
    const where = otherErrorCodes.get(error.code);
    const at = source.at(['errors', raw.errors!.indexOf(error), 'code']);
    if (where) out.push(diagnostic('duplicate-error-code', at, { code: error.code, where }));
    else if (face.errors.findIndex((e) => e.code === error.code) !== i) out.push(diagnostic('duplicate-error-code', at, { code: error.code, where: 'in this face' }));
  }
  for (const [name, schema] of Object.entries(raw.schemas ?? {})) {
    out.push(...annotations(schema, ['schemas', name], source, checkVersion, breaking));
    out.push(...unknownRefs(schema, ['schemas', name], source, raw));
  }
  const checked: Checked = { events: [], actions: [] };
  for (const event of face.events) {
    const problems = lintEvent(face, event, source, raw);
    out.push(...problems, ...annotations(event.data, ['events', event.type, 'data'], source, checkVersion, breaking, 'output'));
    if (problems.every((d) => d.code !== 'unknown-ref')) checked.events.push(event.type);
  }
  out.push(...unknownUnit(face, source, platform), ...invalidPrice(face, source), ...typeNameClash(face, source), ...errorTypeMismatch(face, source), ...effects(face, source));

  for (const action of face.actions) {
    const at = (...path: JsonPath) => ['actions', action.name, ...path];
    const rawAction = raw.actions[action.name]!;
    if (!scopes.has(action.scope)) out.push(diagnostic('unknown-scope', source.at(at('scope')), { scope: action.scope, hint: suggestion(action.scope, scopes) }));
    checkVersion(rawAction.since, at('since'));
    checkVersion(rawAction.until, at('until'));
    if (action.until && action.until <= action.since) {
      out.push(diagnostic('version-range-empty', source.at(at('until')), { since: action.since, until: action.until }));
    }
    if (action.until) breaking.push({ version: action.until, change: `removes action ${action.id}`, at: at('until') });
    checkTiers(rawAction.rate, at('rate'));
    // An action the latest version no longer serves has no operation or page left to show one.
    const served = action.variants.some((v) => v.versions.includes(platform.latest));
    if (served && action.examples.length === 0) out.push(diagnostic('missing-example', source.at(at(), true), { action: action.id }));
    for (const field of Object.keys(action.weight.perItem)) {
      const property = (action.payload.properties as Record<string, { type?: unknown }> | undefined)?.[field];
      if (property?.type !== 'array') out.push(diagnostic('weight-field-not-array', source.at(at('weight', 'perItem', field), true), { field }));
    }
    out.push(...annotations(action.payload, at('payload'), source, checkVersion, breaking));
    out.push(...annotations(action.result, at('result'), source, checkVersion, breaking, 'output'));
    const badRefs = [...unknownRefs(action.payload, at('payload'), source, raw), ...unknownRefs(action.result, at('result'), source, raw)];
    for (const event of action.streamEvents) {
      const eventAt = at('streamEvents', event.name);
      out.push(...annotations(event.data, [...eventAt, 'data'], source, checkVersion, breaking, 'output'));
      if (!action.stream) out.push(diagnostic('stream-events-without-stream', source.at(eventAt, true), { action: action.id, event: event.name }));
      badRefs.push(...unknownRefs(event.data, [...eventAt, 'data'], source, raw));
    }
    out.push(...badRefs);
    if (badRefs.length === 0) checked.actions.push(action.name);
  }
  out.push(...schemaDiagnostics(face, source, checked));
  // A reference that names nothing is reported once, as unknown-ref, not again in the tool it would be part of.
  out.push(...mcpTools(face, source, platform, checked.actions));

  for (const change of breaking) {
    const version = platform.versions.find((v) => v.date === change.version);
    if (!version) continue;
    const announced = version.announced;
    const days = noticeDays(version);
    if (days === undefined || days < NOTICE_DAYS) {
      const detail = announced ? `announced ${announced}, ${days} days before` : 'platform.yaml gives it no "announced" date';
      out.push(diagnostic('breaking-change-notice', source.at(change.at), { version: version.date, change: change.change, detail }));
    }
  }
  return out;
}

/** An event type: its name and its references; its data schema is checked with the others (schemaDiagnostics). */
function lintEvent(face: Face, event: EventType, source: SourceFile, raw: RawFace): Diagnostic[] {
  const at: JsonPath = ['events', event.type];
  const out: Diagnostic[] = [];
  if (!EVENT_NAME.test(event.type) || !event.type.startsWith(`${face.name}.`)) {
    out.push(diagnostic('invalid-event-name', source.at(at, true), { event: event.type, face: face.name }));
  }
  out.push(...unknownRefs(event.data, [...at, 'data'], source, raw));
  return out;
}

/**
 * Checks `since`/`until` on properties and on the alternatives of a field's type, and records the breaking
 * changes they make: in what the client sends (`input`), a field that goes, a required one that comes or a type
 * it may no longer send; in what it receives (`output`), a field that goes or a type that comes or goes.
 */
function annotations(
  schema: JsonSchema,
  base: JsonPath,
  source: SourceFile,
  checkVersion: (v: string | undefined, at: JsonPath) => void,
  breaking: BreakingChange[],
  direction: 'input' | 'output' = 'input',
): Diagnostic[] {
  const out: Diagnostic[] = [];
  walkSchema(schema, (node, path) => {
    for (const keyword of UNIONS) {
      const alternatives = node[keyword];
      if (!isDated(alternatives)) continue;
      // The field is the innermost property on the way (`units` for `units.additionalProperties`).
      const field = path.filter((_, i) => path[i - 1] === 'properties').at(-1);
      const change = field === undefined ? 'changes the type of the schema' : `changes the type of field ${field}`;
      alternatives.forEach((alternative, i) => {
        if (!isObject(alternative)) return;
        const at = [...base, ...path, keyword, i];
        const since = typeof alternative.since === 'string' ? alternative.since : undefined;
        const until = typeof alternative.until === 'string' ? alternative.until : undefined;
        checkVersion(since, [...at, 'since']);
        checkVersion(until, [...at, 'until']);
        if (since && until && until <= since) out.push(diagnostic('version-range-empty', source.at([...at, 'until']), { since, until }));
        if (until) breaking.push({ version: until, change, at: [...at, 'until'] });
        if (since && direction === 'output') breaking.push({ version: since, change, at: [...at, 'since'] });
      });
    }
    const properties = node.properties;
    if (!isObject(properties)) return;
    const required = Array.isArray(node.required) ? node.required : [];
    for (const [name, property] of Object.entries(properties)) {
      if (!isObject(property)) continue;
      const at = [...base, ...path, 'properties', name];
      const since = typeof property.since === 'string' ? property.since : undefined;
      const until = typeof property.until === 'string' ? property.until : undefined;
      checkVersion(since, [...at, 'since']);
      checkVersion(until, [...at, 'until']);
      if (since && until && until <= since) out.push(diagnostic('version-range-empty', source.at([...at, 'until']), { since, until }));
      if (until) breaking.push({ version: until, change: `removes field ${name}`, at: [...at, 'until'] });
      if (since && required.includes(name) && direction === 'input') breaking.push({ version: since, change: `adds required field ${name}`, at: [...at, 'since'] });
    }
  });
  return out;
}

function unknownRefs(schema: JsonSchema, base: JsonPath, source: SourceFile, raw: RawFace): Diagnostic[] {
  const out: Diagnostic[] = [];
  walkSchema(schema, (node, path) => {
    const ref = node.$ref;
    if (typeof ref !== 'string') return;
    const name = ref.startsWith(SCHEMA_REF_PREFIX) ? ref.slice(SCHEMA_REF_PREFIX.length) : undefined;
    // A schema in a block a YAML syntax error left unread is not known to be missing.
    if ((!name || !raw.schemas?.[name]) && !(name && source.unread(name))) {
      const hint = suggestion(ref, Object.keys(raw.schemas ?? {}).map((schema) => `#/schemas/${schema}`));
      out.push(diagnostic('unknown-ref', source.at([...base, ...path, '$ref']), { ref, hint }));
    }
  });
  return out;
}

/** The events and actions whose references all resolve: those whose schemas ajv can be asked about. */
interface Checked {
  events: string[];
  actions: string[];
}

/**
 * What ajv says of the face's schemas and examples: the costly part of lint, so it is memoized by the face
 * file's text (the positions) and the resolved face (the schemas, as the platform's versions shape them).
 */
function schemaDiagnostics(face: Face, source: SourceFile, checked: Checked): Diagnostic[] {
  return memo('schema-diagnostics', { file: source.path, text: sha256(source.text), face, checked }, () => {
    const { refused } = faceValidators(face);
    const out: Diagnostic[] = [];
    // Each named schema on its own, used or not; a schema that uses it says the same at the same place.
    for (const [name, schema] of Object.entries((source.value as RawFace).schemas ?? {})) {
      try {
        assertValidSchema(schema);
      } catch (error) {
        out.push(...invalidSchema(error as Error, source, ['schemas', name], name));
      }
    }
    for (const event of face.events.filter((e) => checked.events.includes(e.type))) {
      const error = refused.get(event.validator);
      if (error) out.push(...invalidSchema(error, source, ['events', event.type, 'data'], `${event.type} data`));
    }
    for (const action of face.actions.filter((a) => checked.actions.includes(a.name))) out.push(...schemasAndExamples(face, action, source));
    // Once each: a named schema's mistake is found by every schema using it, and a payload by each of its versions.
    return out.filter((d, i) => out.findIndex((o) => o.line === d.line && o.col === d.col && o.message === d.message) === i);
  });
}

/**
 * ajv's refusal of a schema, at what it names: the unknown keyword's key (with the keyword it may have
 * meant), or each mistake the meta-schema finds at the node its JSON pointer names; at the schema's key when
 * it names neither. A mistake inside a named schema (`#/schemas/X`, `$defs/X` once materialized) is said at
 * that schema, as its own, so that every schema using it reports it in the same words at the same place.
 */
function invalidSchema(error: Error, source: SourceFile, base: JsonPath, what: string): Diagnostic[] {
  const named = (source.value as RawFace).schemas ?? {};
  const place = (path: JsonPath): { at: JsonPath; whose: string } =>
    path[0] === '$defs' && typeof path[1] === 'string' && Object.hasOwn(named, path[1]) ? { at: ['schemas', ...path.slice(1)], whose: path[1] } : { at: [...base, ...path], whose: what };
  const keyword = /unknown keyword: "([^"]+)"/.exec(error.message)?.[1];
  if (keyword !== undefined) {
    const inSchema = keyPath(valueAt(source.value, base), keyword);
    const inNamed = inSchema ? undefined : keyPath(named, keyword);
    const found = inSchema ? { at: [...base, ...inSchema], whose: what } : inNamed ? { at: ['schemas', ...inNamed], whose: String(inNamed[0]) } : undefined;
    const detail = withHint(error.message, suggestion(keyword, knownKeywords()));
    if (found) return [diagnostic('invalid-json-schema', source.at(found.at, true), { what: found.whose, detail })];
  }
  if (error instanceof SchemaError) {
    return error.problems.map((problem) => {
      const { at, whose } = place(pointerKeys(problem.pointer));
      return diagnostic('invalid-json-schema', source.at(at), { what: whose, detail: problem.detail });
    });
  }
  return [diagnostic('invalid-json-schema', source.at(base), { what, detail: error.message })];
}

const withHint = (detail: string, hint: string) => (hint && !detail.endsWith('.') ? `${detail}.${hint}` : detail + hint);

/** The value at `path` in a parsed file. */
function valueAt(root: unknown, path: JsonPath): unknown {
  return path.reduce<unknown>((node, segment) => (isObject(node) || Array.isArray(node) ? (node as Record<string, unknown>)[String(segment)] : undefined), root);
}

/** The path to the first key named `name` in a schema as written, depth first. */
function keyPath(node: unknown, name: string): JsonPath | undefined {
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) {
      const found = keyPath(item, name);
      if (found) return [i, ...found];
    }
  } else if (isObject(node)) {
    if (Object.hasOwn(node, name)) return [name];
    for (const [key, value] of Object.entries(node)) {
      const found = keyPath(value, name);
      if (found) return [key, ...found];
    }
  }
  return undefined;
}

function schemasAndExamples(face: Face, action: Action, source: SourceFile): Diagnostic[] {
  const at = (...path: JsonPath) => ['actions', action.name, ...path];
  const out: Diagnostic[] = [];
  const { ajv, refused } = faceValidators(face);
  const payloads = action.variants.map((v) => {
    const error = refused.get(v.validator);
    if (error) out.push(...invalidSchema(error, source, at('payload'), 'payload'));
    return error ? undefined : ajv.getSchema(v.validator);
  });
  let result: ValidateFunction | undefined;
  try {
    result = resultValidator(face, action.resultSchema);
  } catch (error) {
    out.push(...invalidSchema(error as Error, source, at('result'), 'result'));
  }
  const latestPayload = payloads.at(-1);
  action.examples.forEach((example, i) => {
    // Validation fills in defaults; the docs show the example as written.
    for (const [what, validate, value] of [['payload', latestPayload, structuredClone(example.payload)], ['result', result, structuredClone(example.result)]] as const) {
      if (validate && !validate(value)) {
        // Each mistake at the field it is about, inside the example.
        for (const problem of valueProblems(validate.errors ?? [], what, value)) {
          out.push(diagnostic('example-mismatch', source.at(at('examples', i, what, ...pointerKeys(problem.pointer)), problem.key), { index: i + 1, what, detail: problem.detail }));
        }
      }
    }
  });
  return out;
}
