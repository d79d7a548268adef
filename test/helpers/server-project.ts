/**
 * A throwaway TypeScript project around a generated server, for checking that what the generator emits
 * for some catalogue compiles: `generated/` as the generator wrote it, one module stub per face under
 * `src/faces/<face>/`, and the core modules the generated server imports.
 *
 * Those core modules (`dispatch-types.ts`, `context.ts`) are copied rather than linked: `context.ts`
 * takes the event types from `../../generated/server/types.js`, which must be the catalogue's own, while
 * the repository modules it reaches (store, providers, e-mail...) import the repository's own generated
 * types and must keep seeing those. So the copies import everything outside the core from the
 * repository, and only the generated types from the project.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { writeGenerated } from '../../src/generate/write.js';
import type { Catalog } from '../../src/spec/model.js';

const REPO = resolve(new URL('../..', import.meta.url).pathname);
const CORE = join(REPO, 'src', 'core');
const GENERATED_IMPORT = /from '\.\.\/\.\.\/src\/core\/([\w-]+)\.js'/g;
const RELATIVE_IMPORT = /from '(\.{1,2}\/[^']+)'/g;

/** Writes the project into `dir` (which should be empty). */
export function layOutServerProject(dir: string, catalog: Catalog, files: Map<string, string>): void {
  writeGenerated(join(dir, 'generated'), files);
  copyCore(dir, files);
  for (const face of catalog.faces.filter((f) => !f.builtin)) {
    mkdirSync(join(dir, 'src', 'faces', face.name), { recursive: true });
    writeFileSync(join(dir, 'src', 'faces', face.name, 'index.ts'), moduleStub(face.name, face.typeName, face.actions.map((a) => a.typeName), face.actions.map((a) => a.name)));
  }
  symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'), 'dir');
  // ESM, as the repository is: without it NodeNext compiles the core's `import.meta` as CommonJS.
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  const { compilerOptions } = JSON.parse(readFileSync(join(REPO, 'tsconfig.json'), 'utf8')) as { compilerOptions: object };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['generated/server/**/*.ts', 'src/faces/**/*.ts'] }, null, 2));
}

/**
 * Runs the repository's tsc on the project; `output` is what it printed. Asynchronous, so that the test's
 * worker keeps answering the test runner while tsc works (tens of seconds on a large catalogue).
 */
export async function typecheck(dir: string): Promise<{ status: number | null; output: string }> {
  const tsc = join(REPO, 'node_modules', '.bin', 'tsc');
  const child = spawn(tsc, ['--noEmit', '-p', dir]);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const [status] = (await once(child, 'close')) as [number | null];
  return { status, output };
}

/** The core modules the generated server imports, and the core modules those import in turn. */
function copyCore(dir: string, files: Map<string, string>): void {
  const target = join(dir, 'src', 'core');
  mkdirSync(target, { recursive: true });
  const pending = [...files].filter(([path]) => path.startsWith('server/') && path.endsWith('.ts')).flatMap(([, text]) => [...text.matchAll(GENERATED_IMPORT)].map((m) => `${m[1]}.ts`));
  const done = new Set<string>();
  while (pending.length) {
    const name = pending.pop()!;
    if (done.has(name)) continue;
    done.add(name);
    const text = readFileSync(join(CORE, name), 'utf8').replace(RELATIVE_IMPORT, (whole, specifier: string) => {
      if (specifier.startsWith('./')) {
        pending.push(specifier.slice(2).replace(/\.js$/, '.ts'));
        return whole;
      }
      if (specifier.startsWith('../../generated/')) return whole;
      return `from '${relative(target, resolve(CORE, specifier))}'`;
    });
    mkdirSync(dirname(join(target, name)), { recursive: true });
    writeFileSync(join(target, name), text);
  }
}

/** A face module whose every handler has the generated signature and throws. */
function moduleStub(face: string, typeName: string, actionTypes: string[], actions: string[]): string {
  const types = actionTypes.flatMap((t) => [`${t}Payload`, `${t}Result`]);
  const methods = actions.map((name, i) => `    async ${name}(_payload: ${actionTypes[i]}Payload, _ctx): Promise<${actionTypes[i]}Result> {\n      throw new Error('stub');\n    },`);
  return [
    `import type { ${typeName}Handlers, ${types.join(', ')} } from '../../../generated/server/types.js';`,
    `import type { FaceModule } from '../../core/face-module.js';`,
    '',
    `export const ${face}: FaceModule<${typeName}Handlers> = {`,
    `  face: '${face}',`,
    '  handlers: {',
    ...methods,
    '  },',
    '};',
    '',
  ].join('\n');
}
