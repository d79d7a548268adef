/**
 * `dispatch check`: fails (exit 1) when `generated/` is not exactly what the face files produce, listing
 * stale files (with a diff), missing files and extra files; CI runs it so the committed output is always
 * current. When the generator and its inputs are those of the last state proved current, it only hashes the
 * files on disk against the manifest; otherwise, or with --full, it regenerates everything in memory.
 */
import type { Command } from 'commander';
import { generatorPaths, type GeneratorPaths } from './paths.js';

export function registerCheck(program: Command): void {
  program
    .command('check')
    .description('Fail (exit 1) when generated/ is not exactly what the face files produce.')
    .option('--faces <dir>', 'directory of face files', 'faces')
    .option('--handlers <dir>', 'directory of handler modules, checked against the face flags', 'src/faces')
    .option('--out <dir>', 'output directory', 'generated')
    .option('--full', 'regenerate everything, without the memo or the record of the last verified state')
    .action(async (options: { faces: string; handlers: string; out: string; full?: boolean }) => {
      const started = performance.now();
      const paths = generatorPaths(options);
      const hashed = options.full ? undefined : await quickCheck(paths);
      const ok = hashed !== undefined || (await fullCheck(paths, !options.full));
      const ms = Math.round(performance.now() - started);
      const how = hashed !== undefined ? `${hashed} files hashed against the manifest` : 'regenerated and compared';
      if (ok) console.log(`generated/ is current (${how}, ${ms} ms).`);
      else {
        console.error('generated/ is out of date: run `npm run generate` and commit the result.');
        process.exitCode = 1;
      }
    });
}

/** The number of files hashed when they are those of the last verified state; undefined when that cannot tell. */
async function quickCheck(paths: GeneratorPaths): Promise<number | undefined> {
  const [{ readFaceDirectory }, { inputsHash, verifiedDiagnostics }, { cacheDir }] = await Promise.all([
    import('../spec/face-directory.js'),
    import('../generate/verified.js'),
    import('../memo/memo.js'),
  ]);
  const verified = verifiedDiagnostics(cacheDir(), inputsHash(readFaceDirectory(paths.facesDir), paths.handlersDir), paths.outDir);
  if (!verified) return undefined;
  for (const line of verified.diagnostics) console.error(line);
  return verified.files;
}

async function fullCheck(paths: GeneratorPaths, useMemo: boolean): Promise<boolean> {
  // Loaded here so that the other commands never load the generator.
  const [{ checkGenerated, isCurrent }, { buildOutput }, memo, { generatorFingerprint }, { recordVerified }, { MANIFEST_PATH }] = await Promise.all([
    import('../generate/check.js'),
    import('./build.js'),
    import('../memo/memo.js'),
    import('../memo/fingerprint.js'),
    import('../generate/verified.js'),
    import('../generate/manifest.js'),
  ]);
  const fingerprint = generatorFingerprint();
  if (useMemo) memo.openCache(fingerprint);
  const built = await buildOutput(paths);
  if (!built) return false;
  if (useMemo) memo.saveCache();
  const report = checkGenerated(paths.outDir, built.files);
  if (isCurrent(report)) {
    recordVerified(memo.cacheDir(), fingerprint, built.inputs, built.files.get(MANIFEST_PATH)!, built.diagnostics);
    return true;
  }
  for (const { diff } of report.stale) console.error(diff);
  for (const { path } of report.stale) console.error(`stale:   ${path}`);
  for (const path of report.missing) console.error(`missing: ${path}`);
  for (const path of report.extra) console.error(`extra:   ${path}`);
  return false;
}
