/**
 * `dispatch check`: regenerates in memory and compares with `generated/`. Exit 1 lists stale files (with a
 * diff), missing files and extra files; CI runs it so the committed output is always current.
 */
import type { Command } from 'commander';
import { generatorPaths } from './paths.js';

export function registerCheck(program: Command): void {
  program
    .command('check')
    .description('Fail (exit 1) when generated/ is not exactly what the face files produce.')
    .option('--faces <dir>', 'directory of face files', 'faces')
    .option('--handlers <dir>', 'directory of handler modules, checked against the face flags', 'src/faces')
    .option('--out <dir>', 'output directory', 'generated')
    .action(async (options: { faces: string; handlers: string; out: string }) => {
      const started = performance.now();
      const paths = generatorPaths(options);
      // Loaded here so that the other commands never load the generator.
      const [{ checkGenerated, isCurrent }, { buildOutput }] = await Promise.all([import('../generate/check.js'), import('./build.js')]);
      const files = await buildOutput(paths);
      if (!files) {
        process.exitCode = 1;
        return;
      }
      const report = checkGenerated(paths.outDir, files);
      const ms = Math.round(performance.now() - started);
      if (isCurrent(report)) {
        console.log(`generated/ is current (${files.size} files, ${ms} ms).`);
        return;
      }
      for (const { diff } of report.stale) console.error(diff);
      for (const { path } of report.stale) console.error(`stale:   ${path}`);
      for (const path of report.missing) console.error(`missing: ${path}`);
      for (const path of report.extra) console.error(`extra:   ${path}`);
      console.error('generated/ is out of date: run `npm run generate` and commit the result.');
      process.exitCode = 1;
    });
}
