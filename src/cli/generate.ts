/**
 * `dispatch generate [--watch]`: regenerates `generated/`, writing only changed files and deleting those no
 * longer produced. With --watch it runs again whenever a face file, handler module or template changes.
 */
import { existsSync, readdirSync, watch } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { fromRoot } from '../package-root.js';
import { generatorPaths, type GeneratorPaths } from './paths.js';

export function registerGenerate(program: Command): void {
  program
    .command('generate')
    .description('Compile faces/*.yaml into generated/ (types, validators, dispatch and scope tables, client, docs, OpenAPI).')
    .option('--faces <dir>', 'directory of face files', 'faces')
    .option('--handlers <dir>', 'directory of handler modules, checked against the face flags', 'src/faces')
    .option('--out <dir>', 'output directory', 'generated')
    .option('--watch', 'regenerate whenever a face file or template changes')
    .action(async (options: { faces: string; handlers: string; out: string; watch?: boolean }) => {
      const paths = generatorPaths(options);
      const ok = await runOnce(paths);
      if (!options.watch) {
        process.exitCode = ok ? 0 : 1;
        return;
      }
      watchAndRun(paths);
    });
}

async function runOnce(paths: GeneratorPaths): Promise<boolean> {
  const started = performance.now();
  // Loaded here so that the other commands never load the generator.
  const [{ writeGenerated }, { buildOutput }] = await Promise.all([import('../generate/write.js'), import('./build.js')]);
  const files = await buildOutput(paths);
  if (!files) return false;
  const report = writeGenerated(paths.outDir, files);
  const ms = Math.round(performance.now() - started);
  for (const path of report.written) console.log(`  wrote   ${path}`);
  for (const path of report.deleted) console.log(`  deleted ${path}`);
  console.log(`${report.written.length} written, ${report.deleted.length} deleted, ${report.unchanged} unchanged in ${ms} ms.`);
  return true;
}

function watchAndRun(paths: GeneratorPaths): void {
  let timer: NodeJS.Timeout | undefined;
  let running = Promise.resolve(true);
  const schedule = () => {
    clearTimeout(timer);
    // Editors write a file in several steps; wait for them to settle.
    timer = setTimeout(() => {
      // One failed run must not stop the ones after it.
      running = running.then(() => runOnce(paths)).catch((error: unknown) => {
        console.error(error);
        return false;
      });
    }, 50);
  };
  // Each directory is watched itself (not recursively): editors save by replacing the file, and a
  // directory watch sees the replacement where a watch on the old file would go quiet.
  const templates = fromRoot('templates');
  // The handler modules too: the lint rules that match face flags against handlers read them.
  const handlers = existsSync(paths.handlersDir) ? [paths.handlersDir] : [];
  const dirs = [paths.facesDir, ...handlers, ...readdirSync(templates, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => join(templates, e.name))];
  for (const dir of dirs) watch(dir, schedule);
  console.log(`Watching ${paths.facesDir} and ${templates} ...`);
}
