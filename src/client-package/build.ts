/**
 * `dispatch client build`: the generated client (`generated/client/`) compiled into a package directory that
 * `npm pack` or `npm publish` takes as it is: its package.json and README, ES modules in `dist/esm/` and
 * CommonJS in `dist/cjs/` (each one file, its dependencies left to the installer), and the declarations of
 * both, those of `dist/cjs/` read as CommonJS through a package.json of their own.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { build } from 'esbuild';
import ts from 'typescript';

export interface ClientBuild {
  /** The package directory written. */
  dir: string;
  /** Its files, relative to it, sorted. */
  files: string[];
}

export async function buildClientPackage(sourceDir: string, outDir: string): Promise<ClientBuild> {
  const entry = join(sourceDir, 'index.ts');
  if (!existsSync(entry) || !existsSync(join(sourceDir, 'package.json'))) {
    throw new Error(`${sourceDir} holds no generated client (index.ts and package.json); run \`dispatch generate\` first.`);
  }
  refuseToReplace(outDir, sourceDir);
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  for (const name of ['package.json', 'README.md']) copyFileSync(join(sourceDir, name), join(outDir, name));
  for (const format of ['esm', 'cjs'] as const) {
    await build({
      entryPoints: [entry],
      outfile: join(outDir, 'dist', format, 'index.js'),
      bundle: true,
      // eventsource-parser and standardwebhooks come from the installer, as package.json declares them.
      packages: 'external',
      format,
      platform: 'neutral',
      target: 'es2022',
      logLevel: 'silent',
    });
  }
  // One compilation: the declarations are the same text for both, read as CommonJS under dist/cjs/ through
  // the package.json written beside them.
  const esm = join(outDir, 'dist', 'esm');
  declarations(sourceDir, esm);
  for (const name of readdirSync(esm).filter((file) => file.endsWith('.d.ts'))) copyFileSync(join(esm, name), join(outDir, 'dist', 'cjs', name));
  writeFileSync(join(outDir, 'dist', 'cjs', 'package.json'), `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`);
  return { dir: outDir, files: filesUnder(outDir) };
}

/**
 * The build empties its directory first, so it refuses one that holds anything but an earlier build (its
 * package.json next to its dist/): a mistaken `--out .` or `--out src` must not cost a tree.
 */
function refuseToReplace(outDir: string, sourceDir: string): void {
  const out = resolve(outDir);
  if (out === resolve(sourceDir) || resolve(sourceDir).startsWith(out + sep)) throw new Error(`--out ${outDir} holds the client's sources; choose another directory.`);
  if (!existsSync(out) || readdirSync(out).length === 0) return;
  const earlier = existsSync(join(out, 'package.json')) && existsSync(join(out, 'dist')) && readdirSync(out).every((name) => ['package.json', 'README.md', 'dist'].includes(name));
  if (!earlier) throw new Error(`--out ${outDir} is not empty and is not an earlier client build; choose an empty or new directory.`);
}

/** The `.d.ts` of every module of the client, written to `outDir`; a type error in the sources stops the build. */
function declarations(sourceDir: string, outDir: string): void {
  const roots = readdirSync(sourceDir)
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join(sourceDir, name));
  const program = ts.createProgram(roots, {
    declaration: true,
    emitDeclarationOnly: true,
    outDir,
    rootDir: sourceDir,
    strict: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: [],
    skipLibCheck: true,
  });
  const emitted = program.emit();
  const problems = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics];
  if (problems.length > 0) {
    const host = { getCanonicalFileName: (f: string) => f, getCurrentDirectory: () => process.cwd(), getNewLine: () => '\n' };
    throw new Error(`The client does not compile:\n${ts.formatDiagnostics(problems, host)}`);
  }
}

function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? filesUnder(dir, join(prefix, entry.name)) : [join(prefix, entry.name)]))
    .sort();
}
