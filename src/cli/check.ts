/**
 * `dispatch check`: fails (exit 1) when `generated/` is not exactly what the face files produce, listing
 * stale files (with a diff), missing files and extra files; CI runs it so the committed output is always
 * current. When the generator and its inputs are those of the last state proved current, it only hashes the
 * files on disk against the manifest; otherwise, or with --full, it regenerates everything in memory.
 */
import type { Command } from 'commander';
import { generatorPaths, type GeneratorPaths } from './paths.js';
import { parseFormat, reporter, type Format, type Reporter } from './report.js';

export function registerCheck(program: Command): void {
  program
    .command('check')
    .description('Fail (exit 1) when generated/ is not exactly what the face files produce.')
    .option('--faces <dir>', 'directory of face files', 'faces')
    .option('--handlers <dir>', 'directory of face modules, whose handlers are checked against the face flags', 'src/faces')
    .option('--out <dir>', 'output directory', 'generated')
    .option('--full', 'regenerate everything, without the memo or the record of the last verified state')
    .option('--format <format>', 'text, or json: one JSON document on stdout, for tools', parseFormat, 'text')
    .action(async (options: { faces: string; handlers: string; out: string; full?: boolean; format: Format }) => {
      const started = performance.now();
      const paths = generatorPaths(options);
      const report = reporter(options.format);
      const hashed = options.full ? undefined : await quickCheck(paths, report);
      const outcome = hashed !== undefined ? { current: true } : await fullCheck(paths, !options.full, report);
      const ms = Math.round(performance.now() - started);
      const how = hashed !== undefined ? `${hashed} files hashed against the manifest` : 'regenerated and compared';
      if (outcome.current) report.say(`generated/ is current (${how}, ${ms} ms).`);
      else {
        report.say('generated/ is out of date: run `npm run generate` and commit the result.', 'err');
        process.exitCode = 1;
      }
      report.finish(outcome.current, { stale: [], missing: [], extra: [], ...outcome });
    });
}

/** The number of files hashed when they are those of the last verified state; undefined when that cannot tell. */
async function quickCheck(paths: GeneratorPaths, report: Reporter): Promise<number | undefined> {
  const [{ readFaceDirectory }, { inputsHash, verifiedDiagnostics }, { cacheDir }] = await Promise.all([
    import('../spec/face-directory.js'),
    import('../generate/verified.js'),
    import('../memo/memo.js'),
  ]);
  const verified = verifiedDiagnostics(cacheDir(), inputsHash(readFaceDirectory(paths.facesDir), paths.handlersDir), paths.outDir);
  if (!verified) return undefined;
  report.diagnostics(verified.diagnostics);
  return verified.files;
}

/** Whether the output is current, and when it is not, which files are stale, missing or extra. */
interface CheckOutcome {
  current: boolean;
  stale?: string[];
  missing?: string[];
  extra?: string[];
}

async function fullCheck(paths: GeneratorPaths, useMemo: boolean, report: Reporter): Promise<CheckOutcome> {
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
  const built = await buildOutput(paths, undefined, undefined, report);
  if (!built) return { current: false };
  if (useMemo) memo.saveCache();
  const found = checkGenerated(paths.outDir, built.files);
  if (isCurrent(found)) {
    recordVerified(memo.cacheDir(), fingerprint, built.inputs, built.files.get(MANIFEST_PATH)!, built.diagnostics);
    return { current: true };
  }
  for (const { diff } of found.stale) report.say(diff, 'err');
  for (const { path } of found.stale) report.say(`stale:   ${path}`, 'err');
  for (const path of found.missing) report.say(`missing: ${path}`, 'err');
  for (const path of found.extra) report.say(`extra:   ${path}`, 'err');
  return { current: false, stale: found.stale.map((s) => s.path), missing: found.missing, extra: found.extra };
}
