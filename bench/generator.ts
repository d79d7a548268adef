/**
 * The generator section: `dispatch generate` and `dispatch check` as a face author and CI run them (the
 * compiled program, one process per run), on the shipped faces and on the large catalogue of the seed's
 * size (test/fixtures/large: 42 faces, 276 actions).
 * - full run, cold: an empty memo, as on a fresh clone; full run, warm: the memo of an earlier run, as on
 *   every later one (output identical either way);
 * - check: the files hashed against the manifest after a generate; check --full: everything regenerated;
 * - watch: `generate --watch` running, one face file saved, until the run's line says the files are written.
 * Targets: full run ≤ 3 s, check ≤ 0.5 s, watch ≤ 0.5 s on the large catalogue.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromRoot } from '../src/package-root.js';

const CLI = fromRoot('dist', 'src', 'cli', 'main.js');
const ROUNDS = 3;

export async function generator(): Promise<void> {
  console.log('\nGenerator (the compiled `dispatch`, one process per run; median of 3)');
  console.log('catalogue            full cold  full warm      check  check --full      watch');
  await catalogue('shipped (faces/)', fromRoot('faces'), 'ai.yaml');
  await catalogue('large (42 / 276)', fromRoot('test', 'fixtures', 'large', 'faces'), 'search.yaml');
}

async function catalogue(label: string, faces: string, edited: string): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'dispatch-bench-gen-'));
  cpSync(faces, join(work, 'faces'), { recursive: true });
  const args = ['--faces', join(work, 'faces'), '--handlers', join(work, 'no-handlers'), '--out', join(work, 'generated')];
  const cold = median(Array.from({ length: ROUNDS }, (_, i) => timed(['generate', ...args], join(work, `cold-cache-${i}`))));
  const cache = join(work, 'cache');
  timed(['generate', ...args], cache);
  const warm = median(Array.from({ length: ROUNDS }, () => timed(['generate', ...args], cache)));
  const check = median(Array.from({ length: ROUNDS }, () => timed(['check', ...args], cache)));
  const full = median(Array.from({ length: ROUNDS }, () => timed(['check', '--full', ...args], cache)));
  const watch = await watchRuns(args, cache, join(work, 'faces', edited));
  console.log(`${label.padEnd(20)} ${ms(cold)} ${ms(warm)} ${ms(check)} ${ms(full, 13)} ${ms(watch)}`);
}

/** Wall time of one run of the program, in ms; a failed run stops the bench. */
function timed(args: string[], cacheDir: string): number {
  const started = performance.now();
  const run = spawnSync(process.execPath, [CLI, ...args], { env: { ...process.env, DISPATCH_CACHE_DIR: cacheDir }, encoding: 'utf8' });
  const elapsed = performance.now() - started;
  if (run.status !== 0) throw new Error(`dispatch ${args.join(' ')} exited ${run.status}:\n${run.stderr}`);
  return elapsed;
}

/** The median time from saving `face` (as editors do: write aside, rename over) to the run's written line. */
async function watchRuns(args: string[], cacheDir: string, face: string): Promise<number> {
  const child = spawn(process.execPath, [CLI, 'generate', '--watch', ...args], { env: { ...process.env, DISPATCH_CACHE_DIR: cacheDir } });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const runs = () => output.split('\n').filter((line) => / written, \d+ deleted/.test(line)).length;
  const until = async (count: number) => {
    // The directories are watched from the line that says so, which follows the first run.
    while (runs() < count || !output.includes('Watching')) {
      if (child.exitCode !== null) throw new Error(`generate --watch exited:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  };
  try {
    await until(1);
    const original = readFileSync(face, 'utf8');
    const times: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      // The face's summary: its page, the index, the client and the OpenAPI document all change.
      writeFileSync(`${face}.tmp`, original.replace(/^summary: (.*)$/m, `summary: $1 Edited ${round}.`));
      const saved = performance.now();
      renameSync(`${face}.tmp`, face);
      await until(round + 1);
      times.push(performance.now() - saved);
    }
    return median(times);
  } finally {
    child.kill();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const ms = (value: number, width = 10) => `${Math.round(value)} ms`.padStart(width);
