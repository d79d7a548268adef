/**
 * `dispatch new face <name>` and `dispatch new action <face> <name>`: scaffold a face or an action (a face
 * file stanza, a handler skeleton answering 501 not_implemented, a test that fails until the handler is
 * written), then generate, so the author starts from a green `generate` and a red test. A face file already
 * there without its module (one copied in) gets the module and tests alone. Refused input is one line on
 * stderr and exit 2, with nothing written.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import type { ScaffoldPaths, ScaffoldPlan } from '../scaffold/plan.js';
import { shownPath } from '../spec/shown-path.js';
import { generatorPaths } from './paths.js';

interface LocationOptions {
  faces: string;
  handlers: string;
  out: string;
  tests: string;
}

interface NewOptions extends LocationOptions {
  scope?: string;
  summary?: string;
}

type Scaffold = typeof import('../scaffold/plan.js');

export function registerNew(program: Command): void {
  const command = program.command('new').description('Scaffold a face or an action: face file stanza, handler skeleton, failing test; then generate.');
  withLocations(
    command
      .command('face <name>')
      .description(
        'Create faces/<name>.yaml with one action, its module src/faces/<name>/ (index.ts, handlers.ts, tables.ts) and a test of the action; ' +
          'for a faces/<name>.yaml that has no module yet, write its module (a handler for each action) and a test of each action with an example.',
      )
      .option('--action <name>', 'the starter action', 'get')
      .option('--scope <scope>', "the action's scope, one of platform.yaml's (default: the only <name>:* scope, if there is one)")
      .option('--summary <text>', "the face's one-line summary"),
  ).action((name: string, options: NewOptions & { action: string }) =>
    run(options, (scaffold, paths) => scaffold.planNewFace(paths, name, options)),
  );
  withLocations(
    command
      .command('action <face> <name>')
      .description("Add an action to faces/<face>.yaml, a method to src/faces/<face>/handlers.ts and a test of the action.")
      .option('--scope <scope>', "the action's scope, one of platform.yaml's (default: the face's, when its actions share one)")
      .option('--summary <text>', "the action's one-line summary"),
  ).action((face: string, name: string, options: NewOptions) =>
    run(options, (scaffold, paths) => scaffold.planNewAction(paths, face, name, options)),
  );
}

/** The same directories as `generate`, and where the tests go. */
function withLocations(command: Command): Command {
  return command
    .option('--faces <dir>', 'directory of face files', 'faces')
    .option('--handlers <dir>', 'directory of face modules', 'src/faces')
    .option('--out <dir>', 'output directory of the generator', 'generated')
    .option('--tests <dir>', 'directory of tests', 'test');
}

async function run(options: LocationOptions, plan: (scaffold: Scaffold, paths: ScaffoldPaths) => Promise<ScaffoldPlan>): Promise<void> {
  const paths: ScaffoldPaths = { ...generatorPaths(options), testsDir: resolve(options.tests) };
  // Loaded here so that the other commands never load ts-morph, prettier or the generator.
  const scaffold = await import('../scaffold/plan.js');
  let planned: ScaffoldPlan;
  try {
    planned = await plan(scaffold, paths);
  } catch (error) {
    if (!(error instanceof scaffold.ScaffoldError)) throw error;
    console.error(`error: ${error.message}`);
    process.exitCode = 2;
    return;
  }
  // Generated in memory from the faces as they will be, before anything is written: should the generator
  // refuse them, its diagnostics are printed and every file is left as it was.
  const [{ buildOutput }, { writeGenerated }] = await Promise.all([import('./build.js'), import('../generate/write.js')]);
  // The module's files as they will be, for lint to read instead of the disk.
  const pending = new Map(planned.writes.filter((write) => write.path.startsWith(paths.handlersDir)).map((write) => [write.path, write.text]));
  const files = (await buildOutput(paths, planned.faceFiles, pending))?.files;
  if (!files) {
    process.exitCode = 1;
    return;
  }
  for (const { path, text, kind } of planned.writes) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    console.log(`  ${kind.padEnd(7)} ${shownPath(path)}`);
  }
  const report = writeGenerated(paths.outDir, files);
  for (const path of report.written) console.log(`  wrote   ${shownPath(join(paths.outDir, path))}`);
  for (const path of report.deleted) console.log(`  deleted ${shownPath(join(paths.outDir, path))}`);
  console.log(`Generated: ${report.written.length} written, ${report.deleted.length} deleted, ${report.unchanged} unchanged.`);
  const until = planned.tests === undefined ? '' : `; until then \`npx vitest run ${shownPath(planned.tests)}\` fails with 501 not_implemented`;
  console.log(`Next: write ${planned.todo} in ${shownPath(planned.handlerFile)}${until}.`);
}
