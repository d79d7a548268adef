// The inputs of dist/, the compiled program, and how to tell whether the last build is current: the sources,
// the generated tables, the bench scripts, tsconfig.json and the lock files. A build is named by a hash of their
// contents (its id); beside it dist/build.json keeps a stamp of their sizes and change times, so that a check on
// unchanged sources reads no file's contents: only a stamp that differs (an edit, a checkout, a copy) costs
// the content hash, which decides whether to build. docs/cli.md § Command line.
// Plain JavaScript, run by node itself: it must work before anything is compiled.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const DIST = join(ROOT, 'dist');
export const MANIFEST = join(DIST, 'build.json');

/** Every input, by absolute path, sorted. */
export function inputFiles() {
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(dir, entry.name));
      else files.push(join(dir, entry.name));
    }
  };
  walk(join(ROOT, 'src'));
  walk(join(ROOT, 'generated'));
  files.push(...readdirSync(join(ROOT, 'bench')).filter((name) => name.endsWith('.ts')).map((name) => join(ROOT, 'bench', name)));
  // node_modules/.package-lock.json changes with every install: the packages bundled into the program.
  files.push(...['package.json', 'package-lock.json', 'tsconfig.json', 'node_modules/.package-lock.json'].map((name) => join(ROOT, name)).filter((file) => existsSync(file)));
  return files.sort();
}

/**
 * The inputs' paths, sizes and modification and change times, hashed. A write to a file moves its change time,
 * which no tool sets back (a tool may set the modification time back), so an edit always changes the stamp.
 */
export function stampOf(files) {
  const hash = createHash('sha256');
  for (const file of files) {
    const { size, mtimeMs, ctimeMs } = statSync(file);
    hash.update(`${relative(ROOT, file)}\0${size}\0${mtimeMs}\0${ctimeMs}\0`);
  }
  return hash.digest('hex').slice(0, 16);
}

/** The hash of every input, by path and content: the build's id. */
export function fingerprint(files) {
  const hash = createHash('sha256');
  for (const file of files) hash.update(`${relative(ROOT, file)}\0`).update(readFileSync(file)).update('\0');
  return hash.digest('hex').slice(0, 16);
}

/** The last build's record; undefined when there is none (or none this script can read). */
export function readManifest() {
  try {
    const manifest = JSON.parse(readFileSync(MANIFEST, 'utf8'));
    return typeof manifest.id === 'string' && Array.isArray(manifest.outputs) && Array.isArray(manifest.builds) ? manifest : undefined;
  } catch {
    return undefined;
  }
}

/** Whether every file the last build wrote is still there. */
export function outputsPresent(manifest) {
  return manifest.outputs.every((file) => existsSync(join(DIST, file)));
}

/** Whether the last build is current by its stamp alone: inputs untouched since, and its files all there. */
export function currentByStamp(manifest, stamp) {
  return manifest?.stamp === stamp && outputsPresent(manifest);
}
