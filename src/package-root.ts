/**
 * The directory that holds package.json, and with it faces/, templates/ and generated/. Modules find their
 * files from here rather than relative to themselves, because the same module runs from `src/` (tests,
 * through tsx) and from `dist/` (the compiled program).
 */
import { existsSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`No package.json above ${from}.`);
  }
}

export const PACKAGE_ROOT = findRoot(dirname(fileURLToPath(import.meta.url)));

/** A path inside the package, e.g. `fromRoot('generated', 'openapi.json')`. */
export const fromRoot = (...parts: string[]) => join(PACKAGE_ROOT, ...parts);

const RUNS_COMPILED = fileURLToPath(import.meta.url).startsWith(join(PACKAGE_ROOT, 'dist') + sep);

/**
 * A path in the tree this process runs from: under `dist/` in the compiled program (`npm start`, the `dispatch`
 * executable), at the package root from the sources. The compiled program is bundled into chunks, so a module
 * cannot find its neighbours relative to its own URL.
 */
export const fromProgram = (...parts: string[]) => (RUNS_COMPILED ? fromRoot('dist', ...parts) : fromRoot(...parts));
