/**
 * Reads `platform.yaml` and every face file of a faces directory, keeping each YAML document for
 * positions. Syntax problems and duplicate keys are reported here; nothing is interpreted yet.
 */
import { join } from 'node:path';
import { diagnostic, type Diagnostic } from './diagnostics.js';
import { readFaceDirectory } from './face-directory.js';
import { shownPath } from './shown-path.js';
import { parseSource, type SourceFile } from './source.js';

export const PLATFORM_FILE = 'platform.yaml';

export interface LoadedSources {
  platform?: SourceFile;
  faces: SourceFile[];
  diagnostics: Diagnostic[];
}

/** Loads from disk; `files` (name → text) may stand in for the directory, as in watch mode and tests. */
export function loadSources(dir: string, files?: Map<string, string>): LoadedSources {
  const texts = files ?? readFaceDirectory(dir);
  const diagnostics: Diagnostic[] = [];
  const faces: SourceFile[] = [];
  let platform: SourceFile | undefined;
  for (const [name, text] of [...texts].sort(([a], [b]) => a.localeCompare(b))) {
    const shown = shownPath(join(dir, name));
    const parsed = parseOnce(shown, text);
    diagnostics.push(...parsed.diagnostics);
    if (name === PLATFORM_FILE) platform = parsed.source;
    else faces.push(parsed.source);
  }
  if (!platform) {
    const shown = shownPath(join(dir, PLATFORM_FILE));
    diagnostics.push(diagnostic('yaml-syntax', { file: shown, line: 1, col: 1 }, { detail: `File not found: the faces directory holds ${PLATFORM_FILE} beside the face files.` }));
  }
  return { platform, faces, diagnostics };
}

/**
 * The last parse of each file, reused while its text is unchanged: `generate --watch` reads every face file
 * on each run, and parsing is most of what an unchanged face costs. Later stages only read the parse.
 */
const parses = new Map<string, { text: string; parsed: ReturnType<typeof parseSource> }>();

function parseOnce(path: string, text: string): ReturnType<typeof parseSource> {
  const last = parses.get(path);
  if (last?.text === text) return last.parsed;
  const parsed = parseSource(path, text);
  parses.set(path, { text, parsed });
  return parsed;
}
