/**
 * The large fixture catalogue (test/fixtures/large): 42 faces and 276 actions that use every feature of the
 * face language. It is what its builder writes, builds without a diagnostic, generates the same bytes
 * twice, and its generated server type-checks against handler stubs. Its generated output is not kept as
 * golden files: the catalogue is for size and breadth, the small fixtures pin the exact text.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { generate } from '../../src/generate/index.js';
import { fromRoot } from '../../src/package-root.js';
import { formatDiagnostic } from '../../src/spec/diagnostics.js';
import { buildCatalog } from '../../src/spec/index.js';
import { walkSchema } from '../../src/spec/json-schema.js';
import type { Catalog, JsonSchema } from '../../src/spec/model.js';
import { ACTION_COUNT, FACE_COUNT, FIXTURE_DIR, writeFixture } from '../fixtures/large/build-fixture.js';
import { layOutServerProject, typecheck } from '../helpers/server-project.js';

const SLOW = 180_000;
const temporary: string[] = [];
const tempDir = (name: string) => {
  const dir = mkdtempSync(join(tmpdir(), `large-${name}-`));
  temporary.push(dir);
  return dir;
};

let catalog: Catalog;
let generated: Promise<Map<string, string>>;

beforeAll(() => {
  const built = buildCatalog(FIXTURE_DIR);
  expect(built.diagnostics.map(formatDiagnostic)).toEqual([]);
  catalog = built.catalog!;
  generated = generate(catalog);
});

afterAll(() => {
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
});

describe('the large fixture catalogue', () => {
  it('is exactly what build-fixture.ts writes', () => {
    const dir = tempDir('faces');
    writeFixture(dir);
    const names = readdirSync(dir).sort();
    expect(readdirSync(FIXTURE_DIR).sort()).toEqual(names);
    for (const name of names) expect(readFileSync(join(FIXTURE_DIR, name), 'utf8'), name).toBe(readFileSync(join(dir, name), 'utf8'));
  });

  it(`has ${FACE_COUNT} faces and ${ACTION_COUNT} actions and builds without a diagnostic`, () => {
    expect(catalog.faces).toHaveLength(FACE_COUNT);
    expect(catalog.faces.flatMap((f) => f.actions)).toHaveLength(ACTION_COUNT);
  });

  it('uses every feature of the face language', () => {
    const missing = Object.entries(features(catalog))
      .filter(([, used]) => !used)
      .map(([feature]) => feature);
    expect(missing).toEqual([]);
  });

  it('writes every property the face language has, wherever face.schema.json allows it', () => {
    const faces = readdirSync(FIXTURE_DIR)
      .filter((name) => name !== 'platform.yaml')
      .map((name) => parse(readFileSync(join(FIXTURE_DIR, name), 'utf8')) as unknown);
    const language = JSON.parse(readFileSync(fromRoot('src', 'spec', 'schemas', 'face.schema.json'), 'utf8')) as JsonSchema;
    expect(unwritten(language, faces)).toEqual([]);
  });

  it('generates the same bytes twice', { timeout: SLOW }, async () => {
    const first = await generated;
    const second = await generate(buildCatalog(FIXTURE_DIR).catalog!);
    expect([...second.keys()]).toEqual([...first.keys()]);
    for (const [path, text] of first) expect(second.get(path), path).toBe(text);
  });

  it('generates a server that type-checks against handler stubs', { timeout: SLOW }, async () => {
    const files = await generated;
    // sms has a face-level rate, so the dispatch table compiles one.
    expect(files.get('server/dispatch.ts')).toMatch(/name: 'sms',\s+builtin: false,\s+rate: \{ free: \{ limit: 30, windowSeconds: 60 \} \}/);
    const dir = tempDir('server');
    layOutServerProject(dir, catalog, files);
    const { status, output } = await typecheck(dir);
    expect(output).toBe('');
    expect(status).toBe(0);
  });
});

/**
 * The properties `schema` declares (following `$ref`s into its `$defs`, map values and array items) that none of
 * `instances` writes, as paths: a property added to the face language shows here until the fixture uses it.
 */
function unwritten(root: JsonSchema, instances: unknown[]): string[] {
  const missing: string[] = [];
  const isMap = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
  const visit = (schema: JsonSchema, values: unknown[], path: string) => {
    const node = typeof schema.$ref === 'string' ? (root.$defs as Record<string, JsonSchema>)[schema.$ref.replace('#/$defs/', '')]! : schema;
    const objects = values.filter(isMap);
    for (const [key, property] of Object.entries((node.properties ?? {}) as Record<string, JsonSchema>)) {
      const written = objects.filter((value) => key in value).map((value) => value[key]);
      if (written.length === 0) missing.push(`${path}${key}`);
      else visit(property, written, `${path}${key}.`);
    }
    if (isMap(node.additionalProperties)) visit(node.additionalProperties as JsonSchema, objects.flatMap(Object.values), `${path}*.`);
    if (isMap(node.items)) visit(node.items as JsonSchema, values.filter(Array.isArray).flat(), `${path}[].`);
  };
  visit(root, instances, '');
  return missing;
}

/** Each feature of face.schema.json (and of the JSON Schema the faces write), and whether the catalogue uses it. */
function features(catalog: Catalog): Record<string, boolean> {
  const faces = catalog.faces;
  const actions = faces.flatMap((f) => f.actions);
  const events = faces.flatMap((f) => f.events);
  const raw = readdirSync(FIXTURE_DIR)
    .filter((name) => name !== 'platform.yaml')
    .map((name) => parse(readFileSync(join(FIXTURE_DIR, name), 'utf8')) as { actions: Record<string, Record<string, unknown>> });
  const rawActions = raw.flatMap((face) => Object.values(face.actions));
  const nodes = (schemas: JsonSchema[]) => {
    const out: { node: JsonSchema; depth: number }[] = [];
    for (const schema of schemas) walkSchema(schema, (node, path) => out.push({ node, depth: path.filter((p) => p === 'properties').length }));
    return out;
  };
  const named = faces.flatMap((f) => f.schemas.map((s) => s.schema));
  const all = nodes([...named, ...actions.flatMap((a) => [a.payload, a.result, ...a.streamEvents.map((e) => e.data)]), ...events.map((e) => e.data)]);
  const payloadNodes = nodes(actions.map((a) => a.payload));
  const some = (list: { node: JsonSchema }[], test: (node: JsonSchema) => boolean) => list.some(({ node }) => test(node));
  const formats = new Set(all.map(({ node }) => node.format));
  const versions = catalog.platform.versions;
  return {
    'face description': faces.some((f) => f.description),
    'face since after the first version': faces.some((f) => f.since > versions[0]!.date),
    'built-in face': faces.some((f) => f.builtin),
    'face rate': faces.some((f) => Object.keys(f.rate).length > 0),
    'face errors': faces.some((f) => f.errors.length > 0),
    'retryable error': faces.some((f) => f.errors.some((e) => e.retryable)),
    'named schemas': faces.some((f) => f.schemas.length > 0),
    'named schema referencing another': some(nodes(named), (n) => typeof n.$ref === 'string'),
    events: events.length > 0,
    'event description': events.some((e) => e.description),
    'event data with a $ref': some(nodes(events.map((e) => e.data)), (n) => typeof n.$ref === 'string'),
    'action description': actions.some((a) => a.description),
    'action since after its face': actions.some((a) => a.since > faces.find((f) => f.name === a.face)!.since),
    'action until': actions.some((a) => a.until),
    stream: actions.some((a) => a.stream),
    streamEvents: actions.some((a) => a.stream && a.streamEvents.length > 0),
    'streamEvent description': actions.some((a) => a.streamEvents.some((e) => e.description)),
    'atomic: false': actions.some((a) => !a.atomic),
    'atomic: true written out': rawActions.some((a) => a.atomic === true),
    'cost.perCall': actions.some((a) => a.cost.perCall !== '0'),
    'cost.perUnit': actions.some((a) => Object.keys(a.cost.perUnit).length > 0),
    'price written as a string': rawActions.some((a) => typeof (a.cost as { perCall?: unknown } | undefined)?.perCall === 'string'),
    'price written as a number': rawActions.some((a) => typeof (a.cost as { perCall?: unknown } | undefined)?.perCall === 'number'),
    'weight.perCall': actions.some((a) => a.weight.perCall > 1),
    'weight.perItem': actions.some((a) => Object.keys(a.weight.perItem).length > 0),
    emits: actions.some((a) => a.emits.length > 0),
    'emits an event of another face': actions.some((a) => a.emits.some((e) => !e.startsWith(`${a.face}.`))),
    'action rate': actions.some((a) => Object.keys(a.rate).length > 0),
    examples: actions.some((a) => a.examples.length > 0),
    'example with a title': actions.some((a) => a.examples.some((e) => e.title)),
    'example without a title': actions.some((a) => a.examples.some((e) => !e.title)),
    'payload property since': some(payloadNodes, (n) => typeof n.since === 'string'),
    'payload property until': some(payloadNodes, (n) => typeof n.until === 'string'),
    'nested payload property since': payloadNodes.some(({ node, depth }) => depth > 1 && typeof node.since === 'string'),
    '$ref in a payload': some(payloadNodes, (n) => typeof n.$ref === 'string'),
    'nested object': all.some(({ node, depth }) => depth > 1 && node.type === 'object'),
    'array of objects': some(all, (n) => n.type === 'array' && (n.items as JsonSchema | undefined)?.type === 'object'),
    enum: some(all, (n) => Array.isArray(n.enum)),
    const: some(all, (n) => 'const' in n),
    default: some(all, (n) => 'default' in n),
    pattern: some(all, (n) => typeof n.pattern === 'string'),
    'nullable type': some(all, (n) => Array.isArray(n.type) && n.type.includes('null')),
    'map (additionalProperties schema)': some(all, (n) => typeof n.additionalProperties === 'object'),
    allOf: some(all, (n) => Array.isArray(n.allOf)),
    oneOf: some(all, (n) => Array.isArray(n.oneOf)),
    anyOf: some(all, (n) => Array.isArray(n.anyOf)),
    prefixItems: some(all, (n) => Array.isArray(n.prefixItems)),
    uniqueItems: some(all, (n) => n.uniqueItems === true),
    'format email, date-time, date, uri, uuid': ['email', 'date-time', 'date', 'uri', 'uuid'].every((f) => formats.has(f)),
    'units declared': catalog.platform.units.length > 0,
    'version announced 90 days ahead after the stable one': versions.filter((v) => v.announced).length >= 2,
  };
}
