/**
 * Reads `platform.yaml` and every face file of a faces directory, keeping each YAML document for
 * positions. Syntax problems and duplicate keys are reported here; nothing is interpreted yet.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { diagnostic, type Diagnostic } from './diagnostics.js';
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
    const shown = relative(process.cwd(), join(dir, name)) || name;
    const parsed = parseSource(shown, text);
    diagnostics.push(...parsed.diagnostics);
    if (name === PLATFORM_FILE) platform = parsed.source;
    else faces.push(parsed.source);
  }
  if (!platform) {
    const shown = relative(process.cwd(), join(dir, PLATFORM_FILE)) || PLATFORM_FILE;
    diagnostics.push(diagnostic('yaml-syntax', { file: shown, line: 1, col: 1 }, { detail: 'file not found' }));
  }
  return { platform, faces, diagnostics };
}

export function readFaceDirectory(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const name of readdirSync(dir)) {
    if (name.endsWith('.yaml')) files.set(name, readFileSync(join(dir, name), 'utf8'));
  }
  return files;
}
