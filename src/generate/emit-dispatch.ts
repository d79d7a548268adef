/**
 * `generated/server/dispatch.ts` (faces → actions → scope, flags, costs, rate overrides, the versions that
 * serve it and its generated checks; event types with the validator of their data), `platform.ts`
 * (versions, limits, tiers and every error code) and `scopes.ts` (scope → actions and action → scope). Maps rather than object literals, so that a request naming
 * `__proto__` or `toString` finds nothing.
 */
import { memoInProcess } from '../memo/memo.js';
import type { Action, Catalog, Face } from '../spec/model.js';
import { catalogErrors } from '../spec/action-errors.js';
import type { Formatted } from './format.js';
import { fits } from './layout.js';
import { hasActionResultSerializer, pipelineName, resultSerializerName } from './emit-pipelines.js';
import { Code, MapOf, SetOf, valueLines } from './print-values.js';

export const DISPATCH_PATH = 'server/dispatch.ts';
export const PLATFORM_PATH = 'server/platform.ts';
export const SCOPES_PATH = 'server/scopes.ts';

const json = (value: unknown) => JSON.stringify(value);
const TYPES = '../../src/core/dispatch-types.js';

/**
 * The file in chunks, laid out here (print-values.ts): the imports, one constant per face, then the maps. A
 * face's chunk names only that face, so a watch run reprints only the faces that changed.
 */
export function emitDispatch(catalog: Catalog): Formatted[] {
  // Imported on first use (server/generated-module.ts): a server starts without parsing every face's validators and pipelines.
  const modules = catalog.faces.flatMap((f) => [
    `const ${pipelines(f.name)}: GeneratedLoader = () => import('./pipelines/${f.name}.js');`,
    `const ${validators(f.name)}: GeneratedLoader = () => import('./validators/${f.name}.js');`,
  ]);
  const faceOfEvent = new Map(catalog.faces.flatMap((f) => f.events.map((e) => [e.type, f.name] as const)));
  const faces = new MapOf('<string, FaceEntry>', catalog.faces.map((f) => [f.name, new Code(faceConstant(f))]));
  const events = new MapOf(
    '<string, EventEntry>',
    catalog.faces.flatMap((f) => f.events.map((e): [string, unknown] => [e.type, { type: e.type, face: f.name, summary: e.summary, validator: ref(f.name, e.validator) }])),
  );
  return [
    [`import type { ActionEntry, EventEntry, FaceEntry, GeneratedLoader } from '${TYPES}';`, '', ...modules.flatMap(loaderLines), ''].join('\n'),
    // A face's chunk is printed from the face and the faces whose events it emits: a watch run reprints only
    // the faces that changed.
    ...catalog.faces.map((f) => {
      const owners = emittedOwners(f, faceOfEvent);
      return memoInProcess('dispatch-face', { face: f, owners }, () => faceEntryText(f, owners));
    }),
    [
      '/** Every face and action the server routes to. */',
      ...valueLines(faces, 'export const faces: ReadonlyMap<string, FaceEntry> = ', '', ';'),
      '',
      '/** Every event type the faces declare, with the validator of its data. */',
      ...valueLines(events, 'export const eventTypes: ReadonlyMap<string, EventEntry> = ', '', ';'),
      '',
    ].join('\n'),
  ].map((formatted) => ({ formatted }));
}

/** A face's loader of its validator module: on its line, or broken after the arrow where it does not fit. */
function loaderLines(line: string): string[] {
  if (fits(line)) return [line];
  const arrow = line.indexOf(' => ') + ' =>'.length;
  return [line.slice(0, arrow), `  ${line.slice(arrow + 1)}`];
}

const faceConstant = (face: Face) => `${face.name}Face`;
const validators = (face: string) => `${face}Validators`;
const pipelines = (face: string) => `${face}Pipelines`;
const ref = (face: string, name: string) => ({ module: new Code(validators(face)), name });

/** The face that declares each event the face's actions emit, by event type. */
const emittedOwners = (face: Face, faceOfEvent: Map<string, string>): Record<string, string> =>
  Object.fromEntries(face.actions.flatMap((a) => a.emits).map((type) => [type, faceOfEvent.get(type)!]));

/** The modules the action's calls need: its face's pipelines and validators, and the validators of the faces whose events it emits. */
const generatedModules = (face: Face, action: Action, owners: Record<string, string>) => [
  new Code(pipelines(face.name)),
  ...[...new Set([face.name, ...action.emits.map((e) => owners[e]!)])].sort().map((name) => new Code(validators(name))),
];

function faceEntryText(face: Face, owners: Record<string, string>): string {
  const actions = new MapOf(
    '<string, ActionEntry>',
    face.actions.map((action) => [action.name, actionEntry(face, action, owners)]),
  );
  const entry = { name: face.name, builtin: face.builtin, rate: face.rate, actions };
  return `${valueLines(entry, `const ${faceConstant(face)}: FaceEntry = `, '', ';').join('\n')}\n`;
}

function actionEntry(face: Face, action: Action, owners: Record<string, string>): Record<string, unknown> {
  return {
    id: action.id,
    face: face.name,
    name: action.name,
    scope: action.scope,
    stream: action.stream,
    ...(action.streamOnly ? { streamOnly: true } : {}),
    streamEvents: action.streamEvents.map((e) => e.name),
    atomic: action.atomic,
    cost: action.cost,
    weight: action.weight,
    emits: action.emits,
    rate: action.rate,
    // The versions that serve it; each one's payload validator is in its checks.
    versions: new SetOf('', action.variants.flatMap((v) => v.versions)),
    // Its checks once routed, written out for it (emit-pipelines.ts).
    checks: { module: new Code(pipelines(face.name)), name: pipelineName(action) },
    // The serializer of its result beside them, where its result schema is closed at its top.
    ...(hasActionResultSerializer(action) ? { result: { module: new Code(pipelines(face.name)), name: resultSerializerName(action) } } : {}),
    modules: generatedModules(face, action, owners),
  };
}

export function emitPlatform(catalog: Catalog): string {
  const { platform } = catalog;
  const errors = catalogErrors(catalog);
  const data = {
    versions: platform.versions,
    latest: platform.latest,
    limits: platform.limits,
    tiers: platform.tiers,
    changelogUrl: platform.changelogUrl,
    errorDocsUrl: platform.errorDocsUrl,
    currency: platform.currency,
  };
  return [
    `import type { ErrorDefinition, PlatformData } from '${TYPES}';`,
    '',
    '/** Versions, limits and tiers from faces/platform.yaml. */',
    `export const platform: PlatformData = ${json(data)};`,
    '',
    '/** Every error code: the platform\'s own and those declared by faces. */',
    `export type ErrorCode = ${errors.map((e) => json(e.code)).join(' | ')};`,
    '',
    `export const errors: ReadonlyMap<ErrorCode, ErrorDefinition> = new Map<ErrorCode, ErrorDefinition>([`,
    ...errors.map((e) => `[${json(e.code)}, ${json(e)}],`),
    ']);',
    '',
  ].join('\n');
}

export function emitScopes(catalog: Catalog): string {
  const actions = catalog.faces.flatMap((f) => f.actions).sort((a, b) => a.id.localeCompare(b.id));
  return [
    `import type { ScopeEntry } from '${TYPES}';`,
    '',
    '/** The token scopes of faces/platform.yaml and the actions each one grants. */',
    `export const scopes: ReadonlyMap<string, ScopeEntry> = new Map([`,
    ...catalog.platform.scopes.map((s) => `[${json(s.name)}, ${json({ description: s.description, actions: s.actions })}],`),
    ']);',
    '',
    '/** The scope each action requires. */',
    `export const actionScopes: ReadonlyMap<string, string> = new Map([`,
    ...actions.map((a) => `[${json(a.id)}, ${json(a.scope)}],`),
    ']);',
    '',
  ].join('\n');
}
