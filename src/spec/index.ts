/**
 * The spec pipeline: load → validate (meta-schema) → resolve → lint (the face files, the events' fixtures
 * across them, and the handler modules when their directory is given). Returns the Catalog with every diagnostic found; a face whose file breaks its meta-schema is reported and left out of the catalogue.
 * A file with YAML syntax errors is read but for the blocks they are in (yaml-repair.ts), and the rest checked.
 */
import { basename } from 'node:path';
import { diagnostic, hasErrors, sortDiagnostics, type Diagnostic } from './diagnostics.js';
import { lintHandlers } from './handler-lint.js';
import { lintFace, lintPlatform } from './lint.js';
import { loadSources } from './load.js';
import type { Catalog, Face, Platform } from './model.js';
import { linkScopes, resolveFace, resolvePlatform } from './resolve.js';
import { unknownErrorCodes } from './rules/unknown-error-code.js';
import { linkEvents } from './rules/event-links.js';
import { triggerFixtures } from './rules/trigger-fixtures.js';
import type { SourceFile } from './source.js';
import { RESERVED_FACE_NAMES } from './reserved-names.js';
import { STANDARD_ERRORS } from './standard-errors.js';
import { validateFace, validatePlatform } from './validate.js';

export interface BuildResult {
  /** Present when there is no error. */
  catalog?: Catalog;
  diagnostics: Diagnostic[];
}

export interface BuildOptions {
  /** In-memory face files by name, instead of reading `dir`. */
  files?: Map<string, string>;
  /** The handler modules (`src/faces`), read by the rules that match face flags against handlers. */
  handlersDir?: string;
  /** Handler modules about to be written (`dispatch new`), by path: read in place of the disk. */
  pendingHandlers?: ReadonlyMap<string, string>;
  /**
   * A catalogue as it was committed, to compare with (`dispatch diff --base`): the lint rules' errors are
   * reported but do not withhold it, since a rule added since then may refuse what was served then. Files
   * that do not parse or break the meta-schema still do.
   */
  lenient?: boolean;
  /**
   * Called with the catalogue once every face is resolved and linked, when nothing found so far withholds
   * it, before the lint rules (the costly part: ajv compiles every schema) run. It is the catalogue returned
   * if lint finds no error: a caller can start on it (generate hands its files to the formatter's thread),
   * and drop what it started if the build fails. A lenient build may return a catalogue it was not called with.
   */
  beforeLint?: (catalog: Catalog) => void;
}

export function buildCatalog(dir: string, options: BuildOptions = {}): BuildResult {
  const { files, handlersDir, pendingHandlers, lenient = false } = options;
  const loaded = loadSources(dir, files);
  const diagnostics = [...loaded.diagnostics];
  const platformSource = loaded.platform;
  const platformCheck = platformSource?.value === undefined ? undefined : validatePlatform(platformSource);
  diagnostics.push(...(platformCheck?.diagnostics ?? []));
  if (!platformSource || !platformCheck?.valid || platformSource.holes.length > 0) {
    // Nothing resolves or lints without a whole platform, but each face file can still be checked on its own, so
    // a broken platform file does not hide what is wrong in the others.
    for (const source of loaded.faces) if (source.value !== undefined) diagnostics.push(...validateFace(source).diagnostics);
    return { diagnostics: sortDiagnostics(diagnostics) };
  }
  const platform = resolvePlatform(platformSource);
  diagnostics.push(...lintPlatform(platform, platformSource));
  // What parsing and the meta-schemas refuse withholds the catalogue even from a lenient build.
  let structural = hasErrors(diagnostics);

  const faces: Face[] = [];
  const sources = new Map<Face, SourceFile>();
  // What was left unread: face files that do not parse or break their meta-schema, and the blocks of a file a
  // YAML syntax error is in. An event named there may be declared or emitted there, so other files' references
  // to it are not reported; the rest of a file with a syntax error is checked like any other.
  const unread: string[] = [];
  for (const source of loaded.faces) {
    if (source.value === undefined) {
      unread.push(source.text);
      continue;
    }
    const { diagnostics: problems, valid } = validateFace(source);
    diagnostics.push(...problems);
    if (!valid) {
      structural = true;
      unread.push(source.text);
      continue;
    }
    unread.push(...source.holes.map((hole) => hole.text));
    const face = resolvedFace(source, platformSource, platform);
    const other = faces.find((f) => f.name === face.name);
    if (other) {
      diagnostics.push(diagnostic('duplicate-face', source.at(['face']), { face: face.name, other: other.file }));
      continue;
    }
    const reserved = RESERVED_FACE_NAMES.get(face.name);
    if (reserved) diagnostics.push(diagnostic('reserved-face-name', source.at(['face']), { face: face.name, reason: reserved }));
    if (basename(source.path) !== `${face.name}.yaml`) {
      diagnostics.push(diagnostic('face-name-mismatch', source.at(['face']), { face: face.name, expected: `${face.name}.yaml` }));
    }
    faces.push(face);
    sources.set(face, source);
  }
  const linked = faces.map((face) => ({ face, source: sources.get(face)! }));
  // Before anything reads a face whole (lint's memo keys, the emitters): it fills in who emits each event.
  diagnostics.push(...linkEvents(linked, (name) => unread.some((text) => text.includes(name))), ...unknownErrorCodes(linked));
  const catalog = linkScopes(platform, faces);
  if (!hasErrors(diagnostics)) options.beforeLint?.(catalog);

  const errorCodes = new Map(STANDARD_ERRORS.map((e) => [e.code, 'by the platform']));
  for (const { face, source } of linked) {
    diagnostics.push(...lintedFace(face, source, platform, errorCodes));
    // A reserved name must change first: a handler module under it would be the wrong advice.
    if (handlersDir && !RESERVED_FACE_NAMES.has(face.name)) diagnostics.push(...lintHandlers(face, source, handlersDir, pendingHandlers));
    for (const error of face.errors) if (!errorCodes.has(error.code)) errorCodes.set(error.code, `in ${face.file}`);
  }
  diagnostics.push(...triggerFixtures(linked, platform));
  const sorted = sortDiagnostics(diagnostics);
  const withheld = lenient ? structural : hasErrors(sorted);
  return withheld ? { diagnostics: sorted } : { catalog, diagnostics: sorted };
}

/**
 * What resolve and lint made of each face file in this process, so that a watch redoes only the faces whose
 * file changed: load.ts hands back the same parsed file for the same text, and both steps read nothing but
 * the file, the platform and (lint) where the face's error codes are declared besides.
 */
const lastRun = new WeakMap<SourceFile, { platform: SourceFile; face: Face; lint?: { key: string; problems: Diagnostic[] } }>();

function resolvedFace(source: SourceFile, platformSource: SourceFile, platform: Platform): Face {
  let last = lastRun.get(source);
  if (last?.platform !== platformSource) {
    last = { platform: platformSource, face: resolveFace(source, platform) };
    lastRun.set(source, last);
  }
  // The events afresh: linkEvents fills in who emits them, which depends on the other faces of this build.
  return { ...last.face, events: last.face.events.map((event) => ({ ...event })) };
}

function lintedFace(face: Face, source: SourceFile, platform: Platform, errorCodes: Map<string, string>): Diagnostic[] {
  const last = lastRun.get(source)!;
  const key = face.errors.map((error) => errorCodes.get(error.code) ?? '').join('\0');
  if (last.lint?.key !== key) last.lint = { key, problems: lintFace(face, source, platform, errorCodes) };
  return last.lint.problems;
}
