/**
 * The generator's fingerprint: a hash of everything besides the face files that decides its output.
 * - its code: every module the spec pipeline and the emitters import, followed from their entry points
 *   through relative imports, hashed once per process, because that is the code this process runs (a
 *   watch keeps running the code it started with, whatever is saved meanwhile);
 * - the templates and the face language's meta-schemas, hashed on every call, because they are read afresh
 *   on every run;
 * - the versions of the packages whose output the generator prints.
 * Memo entries and `check`'s record of a verified state are keyed by it, so a changed generator invalidates both.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fromProgram, fromRoot } from '../package-root.js';
import { META_SCHEMAS_DIR } from '../spec/meta-schemas.js';

const PRINTING_PACKAGES = ['prettier', 'ajv', 'ajv-formats', 'ts-morph', '@ts-morph/common', 'handlebars', 'yaml'];
/** `src/` when run from the sources, `dist/src/` when compiled. */
const SOURCES = fromProgram('src');
/** The entry points: the pipeline, the emitters, and the formatter's thread (started by path, not imported). */
const ENTRIES = ['spec/index.js', 'generate/index.js', 'generate/verified.js', 'generate/format.worker.mjs'];
/** Static and dynamic imports of relative paths, and re-exports. */
const RELATIVE_IMPORT = /\b(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;

let code: string | undefined;

export function generatorFingerprint(): string {
  const hash = createHash('sha256').update(codeHash());
  for (const file of [...filesUnder(fromRoot('templates')), ...filesUnder(META_SCHEMAS_DIR)]) hash.update(`${relative(fromRoot(), file)}\0`).update(readFileSync(file)).update('\0');
  return hash.digest('hex');
}

/** The generator's modules, sorted: exported for the test that they include what the output depends on. */
export function generatorModules(): string[] {
  const seen = new Set<string>();
  const pending = ENTRIES.map((entry) => moduleFile(join(SOURCES, entry))).filter((f): f is string => f !== undefined);
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(RELATIVE_IMPORT)) {
      const target = moduleFile(resolve(dirname(file), specifier!));
      if (target && !seen.has(target)) pending.push(target);
    }
  }
  return [...seen].sort();
}

function codeHash(): string {
  if (code) return code;
  const hash = createHash('sha256');
  for (const file of generatorModules()) hash.update(`${relative(SOURCES, file)}\0`).update(readFileSync(file)).update('\0');
  const require = createRequire(import.meta.url);
  for (const name of PRINTING_PACKAGES) hash.update(`${name}@${(require(`${name}/package.json`) as { version: string }).version}\0`);
  code = hash.digest('hex');
  return code;
}

/** The file an import names: itself (compiled, or JSON), or its TypeScript source (`./x.js` → `./x.ts`). */
function moduleFile(path: string): string | undefined {
  const candidates = [path, path.replace(/\.js$/, '.ts')];
  return candidates.find((candidate) => existsSync(candidate));
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}
