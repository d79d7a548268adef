/**
 * `generated/server/dispatch.ts` (faces → actions → scope, flags, costs, rate overrides and the validator
 * of each served version; event types with the validator of their data), `platform.ts` (versions, limits, tiers and every error code) and `scopes.ts`
 * (scope → actions and action → scope). Maps rather than object literals, so that a request naming
 * `__proto__` or `toString` finds nothing.
 */
import type { Action, Catalog, Face } from '../spec/model.js';
import { STANDARD_ERRORS } from '../spec/standard-errors.js';
import type { Formatted } from './format.js';
import { fits, Unsupported } from './prettier-layout.js';
import { quoted, valueLines } from './print-values.js';

export const DISPATCH_PATH = 'server/dispatch.ts';
export const PLATFORM_PATH = 'server/platform.ts';
export const SCOPES_PATH = 'server/scopes.ts';

const json = (value: unknown) => JSON.stringify(value);
const TYPES = '../../src/core/dispatch-types.js';

/**
 * The file in chunks: the imports, one constant per face, then the maps. A face's chunk names only that
 * face, so generate() reformats only the faces that changed; it comes formatted where the values allow
 * (`preformat`; without it, every chunk is left to prettier).
 */
export function emitDispatch(catalog: Catalog, preformat = true): (string | Formatted)[] {
  // Imported on first use (server/validator-module.ts): a server starts without parsing every face's validators.
  const modules = catalog.faces.map((f) => `const ${validators(f.name)}: ValidatorLoader = () => import('./validators/${f.name}.js');`);
  const faceOfEvent = new Map(catalog.faces.flatMap((f) => f.events.map((e) => [e.type, f.name] as const)));
  return [
    [`import type { ActionEntry, EventEntry, FaceEntry, ValidatorLoader } from '${TYPES}';`, '', ...modules, ''].join('\n'),
    ...catalog.faces.map((f) => faceEntry(f, faceOfEvent, preformat)),
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
const ref = (face: string, name: string) => `{ module: ${validators(face)}, name: ${quoted(name)} }`;

/** Each served version of the action and the validator of its payload, as `[date, ref]` source. */
const versionEntries = (face: Face, action: Action) => action.variants.flatMap((v) => v.versions.map((date) => `[${quoted(date)}, ${ref(face.name, v.validator)}]`));

/** The validator modules the action's calls need: its face's and those of the faces whose events it emits. */
const validatorModules = (face: Face, action: Action, faceOfEvent: Map<string, string>) =>
  `[${[...new Set([face.name, ...action.emits.map((e) => faceOfEvent.get(e)!)])].sort().map(validators).join(', ')}]`;

/** How a face's constant is laid out: each value on the lines it takes, and each line of code as it is. */
interface Layout {
  value: (value: unknown, head: string, indent: string, end: string) => string[];
  line: (line: string) => string;
}

/**
 * As prettier formats it (see print-values.ts): a value or a line that does not fit throws Unsupported.
 * test/generate/own-printers.test.ts holds the result equal to prettier's on both catalogues.
 */
const FORMATTED: Layout = { value: valueLines, line: fitting };
/** Every value as JSON on its line, whatever its length: valid TypeScript for prettier to format. */
const UNFORMATTED: Layout = { value: (value, head, _indent, end) => [`${head}${json(value)}${end}`], line: (line) => line };

/**
 * A face's constant, laid out by prettier's rules where they are known (the large catalogue's dispatch table is
 * a quarter of its TypeScript, and prettier need not format it), left to prettier where they are not.
 */
function faceEntry(face: Face, faceOfEvent: Map<string, string>, preformat: boolean): string | Formatted {
  if (preformat) {
    try {
      return { formatted: faceEntryText(face, faceOfEvent, FORMATTED) };
    } catch (error) {
      if (!(error instanceof Unsupported)) throw error;
    }
  }
  return faceEntryText(face, faceOfEvent, UNFORMATTED);
}

function faceEntryText(face: Face, faceOfEvent: Map<string, string>, layout: Layout): string {
  const lines = [`const ${faceConstant(face)}: FaceEntry = {`, `  name: ${quoted(face.name)},`, `  builtin: ${face.builtin},`, ...layout.value(face.rate, '  rate: ', '  ', ',')];
  lines.push('  actions: new Map<string, ActionEntry>([');
  for (const action of face.actions) lines.push('    [', `      ${quoted(action.name)},`, ...actionEntryLines(face, action, faceOfEvent, layout), '    ],');
  lines.push('  ]),', '};');
  return `${lines.join('\n')}\n`;
}

function actionEntryLines(face: Face, action: Action, faceOfEvent: Map<string, string>, layout: Layout): string[] {
  const indent = '        ';
  const property = (name: string, value: unknown) => layout.value(value, `${indent}${name}: `, indent, ',');
  const versions = versionEntries(face, action);
  return [
    '      {',
    ...property('id', action.id),
    ...property('face', face.name),
    ...property('name', action.name),
    ...property('scope', action.scope),
    ...property('stream', action.stream),
    ...(action.streamOnly ? property('streamOnly', true) : []),
    ...property('streamEvents', action.streamEvents.map((e) => e.name)),
    ...property('atomic', action.atomic),
    ...property('cost', action.cost),
    ...property('weight', action.weight),
    ...property('emits', action.emits),
    ...property('rate', action.rate),
    // Two versions or more: prettier breaks an array of arrays one a line; one stays on the line if it fits.
    ...(versions.length > 1 ? [`${indent}versions: new Map([`, ...versions.map((v) => `${indent}  ${v},`), `${indent}]),`] : [`${indent}versions: new Map([${versions[0]}]),`]).map(layout.line),
    layout.line(`${indent}validatorModules: ${validatorModules(face, action, faceOfEvent)},`),
    '      },',
  ];
}

/** The line, which must fit: prettier's layout of these, when they do not, is its own. */
function fitting(line: string): string {
  if (!fits(line)) throw new Unsupported();
  return line;
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
