/**
 * `dispatch diff --base <ref>`: the breaking-change guard. Compares the working tree's catalogue with the
 * one committed at `ref` (read from git, no checkout) version by version, and exits 1 when a breaking change
 * reaches a version the base already serves, or hides behind a new version announced less than 90 days
 * ahead. Exit 2, with one line, when either catalogue cannot be read or does not build: CI can then tell a
 * breaking change (1) from faces that do not build (2), which `dispatch check` lists in full.
 */
import type { Command } from 'commander';
import { resolve } from 'node:path';

interface DiffOptions {
  base: string;
  faces: string;
  json?: boolean;
}

export function registerDiff(program: Command): void {
  program
    .command('diff')
    .description('Classify the changes since a git ref; fail (exit 1) on a breaking change not gated behind a new, announced version.')
    .requiredOption('--base <ref>', 'the git ref to compare with, e.g. the merge base of a pull request')
    .option('--faces <dir>', 'directory of face files', 'faces')
    .option('--json', 'print { base, breaking, additive } as JSON')
    .action(async (options: DiffOptions) => {
      process.exitCode = await diff(options);
    });
}

async function diff(options: DiffOptions): Promise<number> {
  // Loaded on use so that the other commands never load the spec pipeline for it.
  const [{ buildCatalog }, { readFaceDirectory }, { catalogAtRef, notBuilding }, { compareCatalogs }, { locator }, { diffReport, humanLines }] =
    await Promise.all([
      import('../spec/index.js'),
      import('../spec/face-directory.js'),
      import('../diff/git-catalog.js'),
      import('../diff/gate.js'),
      import('../diff/locate.js'),
      import('../diff/report.js'),
    ]);
  const facesDir = resolve(options.faces);
  let files: Map<string, string>;
  try {
    files = readFaceDirectory(facesDir);
  } catch (error) {
    console.error(`Cannot read ${options.faces}: ${(error as Error).message}`);
    return 2;
  }
  // A change behind a version announced too late is lint's error too; here it is the diff's to report, at its place.
  const head = buildCatalog(facesDir, { files, lenient: true });
  const problems = head.diagnostics.filter((d) => d.code !== 'breaking-change-notice');
  if (!head.catalog || problems.some((d) => d.severity === 'error')) {
    console.error(notBuilding(`The catalogue in ${options.faces}`, problems));
    return 2;
  }
  const base = await catalogAtRef(options.base, facesDir);
  if ('error' in base) {
    console.error(base.error);
    return 2;
  }
  const report = diffReport(compareCatalogs(base.catalog, head.catalog), locator(facesDir, files));
  const failed = report.entries.some((e) => e.error);
  if (options.json) {
    const breaking = report.entries.filter((e) => e.breaking);
    const additive = report.entries.filter((e) => !e.breaking);
    console.log(JSON.stringify({ base: options.base, breaking, additive }, null, 2));
  } else {
    const { errors, info } = humanLines(report, options.base);
    for (const line of errors) console.error(line);
    for (const line of info) console.log(line);
  }
  return failed ? 1 : 0;
}
