/**
 * `generated/server/dispatch.ts` (faces → actions → scope, flags, costs, rate overrides and the validator
 * of each served version; event types with the validator of their data), `platform.ts` (versions, limits, tiers and every error code) and `scopes.ts`
 * (scope → actions and action → scope). Maps rather than object literals, so that a request naming
 * `__proto__` or `toString` finds nothing.
 */
import type { Action, Catalog, Face } from '../spec/model.js';
import { STANDARD_ERRORS } from '../spec/standard-errors.js';

export const DISPATCH_PATH = 'server/dispatch.ts';
export const PLATFORM_PATH = 'server/platform.ts';
export const SCOPES_PATH = 'server/scopes.ts';

const json = (value: unknown) => JSON.stringify(value);
const TYPES = '../../src/runtime/dispatch-types.js';

/**
 * The file in chunks: the imports, one constant per face, then the maps. A face's chunk names only that
 * face, so generate() reformats only the faces that changed.
 */
export function emitDispatch(catalog: Catalog): string[] {
  // Imported on first use (runtime/validator-module.ts): a server starts without parsing every face's validators.
  const modules = catalog.faces.map((f) => `const ${validators(f.name)}: ValidatorLoader = () => import('./validators/${f.name}.js');`);
  const faceOfEvent = new Map(catalog.faces.flatMap((f) => f.events.map((e) => [e.type, f.name] as const)));
  return [
    [`import type { ActionEntry, EventEntry, FaceEntry, ValidatorLoader } from '${TYPES}';`, '', ...modules, ''].join('\n'),
    ...catalog.faces.map((f) => `const ${faceConstant(f)}: FaceEntry = ${faceEntry(f, faceOfEvent)};\n`),
    [
      '/** Every face and action the server routes to. */',
      `export const faces: ReadonlyMap<string, FaceEntry> = new Map<string, FaceEntry>([`,
      ...catalog.faces.map((f) => `[${json(f.name)}, ${faceConstant(f)}],`),
      ']);',
      '',
      '/** Every event type the faces declare, with the validator of its data. */',
      `export const eventTypes: ReadonlyMap<string, EventEntry> = new Map<string, EventEntry>([`,
      ...catalog.faces.flatMap((f) =>
        f.events.map((e) => `[${json(e.type)}, { type: ${json(e.type)}, face: ${json(f.name)}, summary: ${json(e.summary)}, validator: ${ref(f.name, e.validator)} }],`),
      ),
      ']);',
      '',
    ].join('\n'),
  ];
}

const faceConstant = (face: Face) => `${face.name}Face`;
const validators = (face: string) => `${face}Validators`;
const ref = (face: string, name: string) => `{ module: ${validators(face)}, name: ${json(name)} }`;

function faceEntry(face: Face, faceOfEvent: Map<string, string>): string {
  const actions = face.actions.map((a) => `[${json(a.name)}, ${actionEntry(face, a, faceOfEvent)}]`).join(',\n');
  return `{ name: ${json(face.name)}, builtin: ${face.builtin}, rate: ${json(face.rate)}, actions: new Map<string, ActionEntry>([${actions}]) }`;
}

function actionEntry(face: Face, action: Action, faceOfEvent: Map<string, string>): string {
  const versions = action.variants.flatMap((v) => v.versions.map((date) => `[${json(date)}, ${ref(face.name, v.validator)}]`));
  const needed = [...new Set([face.name, ...action.emits.map((e) => faceOfEvent.get(e)!)])].sort();
  return `{
    id: ${json(action.id)}, face: ${json(face.name)}, name: ${json(action.name)}, scope: ${json(action.scope)},
    stream: ${action.stream},${action.streamOnly ? ' streamOnly: true,' : ''} streamEvents: ${json(action.streamEvents.map((e) => e.name))}, atomic: ${action.atomic}, cost: ${json(action.cost)}, weight: ${json(action.weight)}, emits: ${json(action.emits)},
    rate: ${json(action.rate)}, versions: new Map([${versions.join(', ')}]), validatorModules: [${needed.map(validators).join(', ')}],
  }`;
}

export function emitPlatform(catalog: Catalog): string {
  const { platform } = catalog;
  const errors = [...STANDARD_ERRORS, ...catalog.faces.flatMap((f) => f.errors)];
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
