/**
 * What `dispatch new` needs to know of the faces directory before it writes anything: the platform's scopes
 * and the stable version in force today, and the faces already declared (which are built in, which scopes
 * they use), with the text of every file so that the generator can run on the changed set in memory.
 */
import { join } from 'node:path';
import { parse } from 'yaml';
import { readFaceDirectory } from '../spec/face-directory.js';
import { isObject } from '../spec/json-schema.js';
import { PLATFORM_FILE } from '../spec/load.js';
import type { Platform } from '../spec/model.js';
import { resolvePlatform } from '../spec/resolve.js';
import { versionInForce } from '../spec/version-in-force.js';
import { parseSource } from '../spec/source.js';
import type { ActionExample } from './face-stanza.js';
import { ScaffoldError } from './names.js';

export interface DeclaredFace {
  builtin: boolean;
  summary?: string;
  actions: string[];
  /** The scopes its actions use, in file order, each once. */
  scopes: string[];
  /** Each action's first example, where it has one with an object payload (what a scaffolded test calls). */
  examples: Map<string, ActionExample>;
}

export interface FacesWorkspace {
  facesDir: string;
  /** Every face file and platform.yaml, by file name. */
  files: Map<string, string>;
  scopes: string[];
  /**
   * What a new face is first served in: the stable version in force today, so that a call naming no version
   * reaches it at once (a face added to a version already served is an additive change). Not the newest
   * declared, which may be only announced.
   */
  since: string;
  /** By face name, which is its file name (the generator refuses any other). */
  faces: Map<string, DeclaredFace>;
}

export function readWorkspace(facesDir: string): FacesWorkspace {
  let files: Map<string, string>;
  try {
    files = readFaceDirectory(facesDir);
  } catch {
    throw new ScaffoldError(`cannot read the faces directory ${facesDir}.`);
  }
  const platformText = files.get(PLATFORM_FILE);
  if (platformText === undefined) throw new ScaffoldError(`no ${PLATFORM_FILE} in ${facesDir}.`);
  const platform = readPlatform(join(facesDir, PLATFORM_FILE), platformText);
  const faces = new Map<string, DeclaredFace>();
  for (const [file, text] of files) {
    if (file === PLATFORM_FILE) continue;
    faces.set(file.slice(0, -'.yaml'.length), declaredFace(text));
  }
  return { facesDir, files, scopes: platform.scopes.map((s) => s.name), since: versionInForce(platform, new Date().toISOString().slice(0, 10)), faces };
}

/**
 * The platform as the generator resolves it. Not checked against its meta-schema (compiling that is most of
 * the time a refusal would take): a broken platform.yaml is refused here only when it cannot be resolved,
 * and the generator, which runs before anything is written, reports the rest.
 */
function readPlatform(path: string, text: string): Platform {
  const refused = new ScaffoldError(`${PLATFORM_FILE} has errors; \`dispatch check\` lists them.`);
  const { source, diagnostics } = parseSource(path, text);
  if (diagnostics.length > 0 || source.value === undefined) throw refused;
  try {
    return resolvePlatform(source);
  } catch {
    throw refused;
  }
}

/** Read loosely: a face file with errors still tells whether it is built in, its actions, their scopes and examples. */
function declaredFace(text: string): DeclaredFace {
  let value: { builtin?: unknown; summary?: unknown; actions?: Record<string, { scope?: unknown; examples?: unknown } | null> } | undefined;
  try {
    value = parse(text) ?? undefined;
  } catch {
    value = undefined;
  }
  const actions = Object.entries(value?.actions ?? {});
  const scopes = actions.flatMap(([, a]) => (typeof a?.scope === 'string' ? [a.scope] : []));
  const examples = new Map<string, ActionExample>();
  for (const [name, action] of actions) {
    const [first] = Array.isArray(action?.examples) ? (action.examples as { payload?: unknown; result?: unknown }[]) : [];
    if (isObject(first?.payload) && isObject(first?.result)) examples.set(name, { payload: first.payload, result: first.result });
  }
  const summary = typeof value?.summary === 'string' ? value.summary : undefined;
  return { builtin: value?.builtin === true, summary, actions: actions.map(([name]) => name), scopes: [...new Set(scopes)], examples };
}

export const builtinFaces = (workspace: FacesWorkspace) => [...workspace.faces].filter(([, f]) => f.builtin).map(([name]) => name);

/**
 * The scope of a new action: the one given, which must be the platform's; otherwise the only sensible one
 * (`candidates` holding exactly one), or a refusal that lists them all.
 */
export function chooseScope(workspace: FacesWorkspace, given: string | undefined, candidates: readonly string[]): string {
  const known = workspace.scopes;
  if (given !== undefined) {
    if (known.includes(given)) return given;
    throw new ScaffoldError(`unknown scope "${given}"; platform.yaml declares: ${known.join(', ')}.`);
  }
  const sensible = candidates.filter((s) => known.includes(s));
  if (sensible.length === 1) return sensible[0]!;
  throw new ScaffoldError(`--scope is required; platform.yaml declares: ${known.join(', ')}.`);
}
