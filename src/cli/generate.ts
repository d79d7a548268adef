/**
 * `dispatch generate [--watch]`: regenerates `generated/`, writing only changed files and deleting those no
 * longer produced. With --watch it runs again whenever a face file, handler module or template changes.
 */
import { existsSync, readdirSync, watch } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { fromRoot } from '../package-root.js';
import { MANIFEST_PATH } from '../generate/manifest.js';
import { generatorPaths, type GeneratorPaths } from './paths.js';
import { parseFormat, reporter, type Format, type Reporter } from './report.js';

export function registerGenerate(program: Command): void {
  program
    .command('generate')
    .description('Compile faces/*.yaml into generated/ (types, validators, dispatch and scope tables, client, docs, OpenAPI, MCP tools).')
    .option('--faces <dir>', 'directory of face files', 'faces')
    .option('--handlers <dir>', 'directory of face modules, whose handlers are checked against the face flags', 'src/faces')
    .option('--out <dir>', 'output directory', 'generated')
    .option('--watch', 'regenerate whenever a face file or template changes')
    .option('--format <format>', 'text, or json: one JSON document on stdout, for tools (not with --watch)', parseFormat, 'text')
    .action(async (options: { faces: string; handlers: string; out: string; watch?: boolean; format: Format }) => {
      const paths = generatorPaths(options);
      // A watch's first edit prints and formats a chunk, on the formatter's thread, and may check a handler
      // module: the thread is started (it loads prettier), and the handler checks' compiler
      // loaded, before watching starts, not then.
      if (options.watch) {
        (await import('../generate/format.js')).prepareFormatting();
        if (existsSync(paths.handlersDir)) (await import('../spec/ts-morph-on-demand.js')).tsMorph();
      }
      const ok = await runOnce(paths, Boolean(options.watch), reporter(options.watch ? 'text' : options.format));
      if (!options.watch) {
        process.exitCode = ok ? 0 : 1;
        return;
      }
      await watchAndRun(paths, ok);
    });
}

async function runOnce(paths: GeneratorPaths, watching: boolean, report: Reporter = reporter()): Promise<boolean> {
  const started = performance.now();
  // Loaded here so that the other commands never load the generator.
  const [{ writeGenerated }, { buildOutput }, memo, { generatorFingerprint }, { recordVerified }] = await Promise.all([
    import('../generate/write.js'),
    import('./build.js'),
    import('../memo/memo.js'),
    import('../memo/fingerprint.js'),
    import('../generate/verified.js'),
  ]);
  // Taken before anything is read, so that a template saved during the run makes the record miss, not lie.
  const fingerprint = generatorFingerprint();
  memo.openCache(fingerprint);
  const built = await buildOutput(paths, undefined, undefined, report);
  if (!built) {
    report.finish(false);
    return false;
  }
  const written = writeGenerated(paths.outDir, built.files);
  // What was just written is current: the next `check` only hashes it.
  recordVerified(memo.cacheDir(), fingerprint, built.inputs, built.files.get(MANIFEST_PATH)!, built.diagnostics);
  const ms = Math.round(performance.now() - started);
  for (const path of written.written) report.say(`  wrote   ${path}`);
  for (const path of written.deleted) report.say(`  deleted ${path}`);
  // A watch prints a run after run: the time tells them apart.
  const when = watching ? `[${new Date().toISOString().slice(11, 19)}] ` : '';
  report.say(`${when}${written.written.length} written, ${written.deleted.length} deleted, ${written.unchanged} unchanged in ${ms} ms.`);
  report.finish(true, { written: written.written, deleted: written.deleted, unchanged: written.unchanged });
  // After the report: the files are written by then, and the memo is for the next run. A watch keeps it in
  // memory and saves it when the edits pause (watchAndRun): writing it after each run would hold up the next.
  if (!watching) memo.saveCache();
  return true;
}

/** How long a watch waits after its last run, with no edit since, before it saves the memo for later runs. */
const MEMO_SAVE_QUIET_MS = 1000;

/** Watches after a first run, which may have failed (`firstOk`). */
async function watchAndRun(paths: GeneratorPaths, firstOk: boolean): Promise<void> {
  const memo = await import('../memo/memo.js');
  // Work to save: a run has succeeded since the last save. A failed run alone leaves only part of the work in
  // the memo (lint's, and what was emitted before lint found the error), which must not replace the rest of
  // the catalogue's on disk.
  let unsaved = false;
  let saving: NodeJS.Timeout | undefined;
  const save = () => {
    clearTimeout(saving);
    if (!unsaved) return;
    unsaved = false;
    try {
      memo.saveCache();
    } catch (error) {
      console.error(`The memo was not saved (the next run computes what it would have kept): ${(error as Error).message}`);
    }
  };
  const afterRun = (ok: boolean) => {
    unsaved ||= ok;
    clearTimeout(saving);
    if (unsaved) saving = setTimeout(save, MEMO_SAVE_QUIET_MS);
    return ok;
  };
  afterRun(firstOk);
  let timer: NodeJS.Timeout | undefined;
  let running = Promise.resolve(true);
  const schedule = () => {
    clearTimeout(timer);
    clearTimeout(saving);
    // Editors write a file in several steps; wait for them to settle.
    timer = setTimeout(() => {
      running = running
        .then(() => {
          // A run queued behind another: no save may land in the middle of it.
          clearTimeout(saving);
          return runOnce(paths, true);
        })
        // One failed run must not stop the ones after it.
        .catch((error: unknown) => {
          console.error(error);
          return false;
        })
        .then(afterRun);
    }, 50);
  };
  // Stopped before its quiet save (Ctrl-C right after an edit), a watch still leaves its memo for the next run.
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    process.once(signal, () => {
      save();
      process.exit(code);
    });
  }
  // Each directory is watched itself (not recursively): editors save by replacing the file, and a
  // directory watch sees the replacement where a watch on the old file would go quiet.
  const templates = fromRoot('templates');
  const dirs = [paths.facesDir, ...readdirSync(templates, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => join(templates, e.name))];
  for (const dir of dirs) watch(dir, schedule);
  // The face modules too, with their folders, a module made while watching included: lint reads their handlers.
  if (existsSync(paths.handlersDir)) watch(paths.handlersDir, { recursive: true }, schedule);
  console.log(`Watching ${paths.facesDir} and ${templates} ...`);
}
