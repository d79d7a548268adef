/**
 * `check`'s record of the last state it (or `generate`) proved current: under this generator fingerprint,
 * these input files produced a manifest with this hash, printing these diagnostics. When the fingerprint and
 * the inputs match the record, `check` needs only to hash the files on disk against the manifest's
 * `sha256` list, which catches a one-byte hand edit of any file without regenerating anything.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { sha256 } from '../hash.js';
import { generatorFingerprint } from '../memo/fingerprint.js';
import { writeCacheFile } from '../memo/memo.js';
import type { Diagnostic } from '../spec/diagnostics.js';
import { moduleFiles } from '../spec/handler-lint.js';
import { listFiles } from './check.js';
import { MANIFEST_PATH, type Manifest } from './manifest.js';

const FILE = 'verified.json';

interface VerifiedState {
  fingerprint: string;
  /** Hash of every input file's name and text: the face files and the handler modules lint reads. */
  inputs: string;
  manifest: string;
  diagnostics: Diagnostic[];
}

/** One hash over the face files (name → text) and what lint reads of the face modules in `modulesDir`. */
export function inputsHash(faceFiles: Map<string, string>, modulesDir: string): string {
  const parts = [...faceFiles].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, text]) => `faces/${name}\0${sha256(text)}`);
  if (existsSync(modulesDir)) {
    for (const face of readdirSync(modulesDir).sort()) {
      for (const file of Object.values(moduleFiles(modulesDir, face))) {
        if (existsSync(file)) parts.push(`modules/${face}/${basename(file)}\0${sha256(readFileSync(file, 'utf8'))}`);
      }
    }
  }
  return sha256(parts.join('\n'));
}

/** Records that the generator of `fingerprint` (taken as the run started) made this manifest from these inputs. */
export function recordVerified(cacheDir: string, fingerprint: string, inputs: string, manifestText: string, diagnostics: Diagnostic[]): void {
  const state: VerifiedState = { fingerprint, inputs, manifest: sha256(manifestText), diagnostics };
  writeCacheFile(cacheDir, FILE, JSON.stringify(state));
}

/**
 * The diagnostics to print and the number of files hashed when `outDir` is exactly what the recorded state
 * produced for these inputs; undefined when it may not be (no record, another generator or other inputs, or
 * any file on disk that differs from its hash, is missing or is not the generator's): then only regenerating
 * can tell.
 */
export function verifiedDiagnostics(cacheDir: string, inputs: string, outDir: string): { diagnostics: Diagnostic[]; files: number } | undefined {
  let state: VerifiedState;
  let manifestText: string;
  try {
    state = JSON.parse(readFileSync(join(cacheDir, FILE), 'utf8')) as VerifiedState;
    manifestText = readFileSync(join(outDir, MANIFEST_PATH), 'utf8');
  } catch {
    return undefined;
  }
  if (state.fingerprint !== generatorFingerprint() || state.inputs !== inputs || state.manifest !== sha256(manifestText)) return undefined;
  const manifest = JSON.parse(manifestText) as Manifest;
  const onDisk = listFiles(outDir);
  if (onDisk.length !== manifest.files.length || onDisk.some((path, i) => path !== manifest.files[i])) return undefined;
  for (const [path, hash] of Object.entries(manifest.sha256)) {
    if (sha256(readFileSync(join(outDir, path), 'utf8')) !== hash) return undefined;
  }
  return { diagnostics: state.diagnostics, files: manifest.files.length };
}
