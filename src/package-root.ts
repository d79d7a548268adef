/**
 * The directory that holds package.json, and with it faces/, templates/ and generated/. Modules find their
 * files from here rather than relative to themselves, because the same module runs from `src/` (tests,
 * through tsx) and from `dist/src/` (the compiled program).
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
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
