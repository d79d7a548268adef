/**
 * The catalogue as committed at a git ref, read from git's objects without a checkout (the working tree
 * stays as it is): the faces directory's path inside the repository, its `.yaml` files at the ref, and the
 * spec pipeline run on them in memory. Every failure is one line for the user, never a stack trace.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { formatDiagnostic, type Diagnostic } from '../spec/diagnostics.js';
import { buildCatalog } from '../spec/index.js';
import type { Catalog } from '../spec/model.js';

const run = promisify(execFile);

export type RefCatalog = { catalog: Catalog; files: Map<string, string> } | { error: string };

/** Loads the catalogue of `facesDir` (a directory of the working tree) as it is at `ref`. */
export async function catalogAtRef(ref: string, facesDir: string): Promise<RefCatalog> {
  const git = async (cwd: string, ...args: string[]) => (await run('git', args, { cwd, maxBuffer: 64 * 1024 * 1024 })).stdout;
  let top: string;
  let prefix: string;
  let commit: string;
  try {
    top = (await git(facesDir, 'rev-parse', '--show-toplevel')).trim();
    // The faces directory relative to the repository root, `faces/` for the shipped layout.
    prefix = (await git(facesDir, 'rev-parse', '--show-prefix')).trim().replace(/\/$/, '');
  } catch (error) {
    return { error: `${facesDir} is not inside a git repository (${firstLine(error)}).` };
  }
  try {
    commit = (await git(top, 'rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`)).trim();
  } catch {
    return { error: `git does not know the ref "${ref}".` };
  }
  let names: string[];
  try {
    const tree = prefix ? `${commit}:${prefix}` : `${commit}^{tree}`;
    names = (await git(top, 'ls-tree', '--name-only', '-z', tree)).split('\0').filter((n) => n.endsWith('.yaml'));
  } catch {
    return { error: `${prefix || '.'}/ does not exist at ${ref}.` };
  }
  const files = new Map<string, string>();
  for (const name of names) {
    const path = prefix ? `${prefix}/${name}` : name;
    files.set(name, await git(top, 'cat-file', 'blob', `${commit}:${path}`));
  }
  // Leniently: a lint rule added since the ref must not stop the comparison with what it served.
  const { catalog, diagnostics } = buildCatalog(facesDir, { files, lenient: true });
  if (!catalog) return { error: notBuilding(`The catalogue at ${ref}`, diagnostics) };
  return { catalog, files };
}

/** One line for a catalogue that does not build: how many errors, and the first of them. */
export function notBuilding(what: string, diagnostics: Diagnostic[]): string {
  const errors = diagnostics.filter((d) => d.severity === 'error');
  const first = errors[0] ? `; first: ${formatDiagnostic(errors[0])}` : '';
  return `${what} does not build (${errors.length} error${errors.length === 1 ? '' : 's'}${first}).`;
}

function firstLine(error: unknown): string {
  const stderr = (error as { stderr?: string }).stderr;
  return (stderr || (error as Error).message || String(error)).split('\n')[0]!.replace(/^fatal: /, '').trim();
}
