/**
 * Every shell block of the README and of docs/ runs as printed, in reading order (the README, then the pages in
 * the order its links name them), against one server started as `npm start` starts it: the compiled
 * `dispatch serve` on a fresh embedded store. Each block runs with bash (errors fatal, unset variables refused)
 * in a scratch directory, from a shell that starts with no key: the quick start's block sets
 * `DISPATCH_API_KEY`, and what a block exports, later blocks have, as in one terminal. Only the address differs
 * from the page's; `npx dispatch` finds this checkout's program, `DATA_DIR` names the server's store and
 * `DISPATCH_URL` its address, as they would be in the checkout beside `npm start`.
 *
 * A block passes when it has no `…` outside its comments, exits 0, and every error code it prints is one the
 * block names (an expected refusal, such as a declined card), so a call that fails unexpectedly fails the block
 * although curl exits 0. A block is left out only when the page marks it `<!-- skip: <reason> -->` with one of
 * the reasons below, and vitest lists it as skipped with its reason. Afterwards the checkout's `git status` is
 * what it was.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../../src/package-root.js';
import { runShell } from '../helpers/doc-examples.js';
import { documentationPages, readPage, type Block } from '../helpers/doc-pages.js';
import { ROOT, serve, type ServeProcess } from '../helpers/process.js';

/** The only reasons a block may be left out. */
const SKIP_REASONS = ['starts a long-running process', 'runs the test suite', 'needs an outside service'];

/** What `dispatch new` reads and writes in a checkout, copied so that the scaffolding block changes the copy. */
const SCAFFOLDED = ['faces', 'src/faces', 'generated'];

/** Saves the shell's exported variables, but for those each shell sets for itself. */
const SAVE_EXPORTS = `export -p | grep -vE '^declare -x (PWD|OLDPWD|SHLVL)(=|$)' > "$DOC_BLOCK_STATE"`;

const blocks: Block[] = documentationPages().flatMap((page) => readPage(page).blocks);
const gitStatus = () => execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: ROOT, encoding: 'utf8' });

let server: ServeProcess;
let scratch: string;
let work: string;
let state: string;
let statusBefore: string;

beforeAll(async () => {
  statusBefore = gitStatus();
  scratch = mkdtempSync(join(tmpdir(), 'dispatch-doc-blocks-'));
  const dataDir = join(scratch, 'data');
  server = await serve({ DATA_DIR: dataDir });
  work = join(scratch, 'work');
  for (const dir of SCAFFOLDED) cpSync(fromRoot(dir), join(work, dir), { recursive: true });
  // `npx dispatch` looks for the program in node_modules/.bin, up from where it runs.
  mkdirSync(join(work, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(fromRoot('src', 'cli', 'bin.mjs'), join(work, 'node_modules', '.bin', 'dispatch'));
  state = join(scratch, 'exported.sh');
  // A fresh shell: none of npm's or the test runner's settings, none of the server's, no key.
  const fresh = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(npm_|VITEST|DISPATCH_|NODE_ENV$|NODE_OPTIONS$|DATA_DIR$|DATABASE_URL$|REDIS_URL$)/i.test(name)));
  execFileSync('bash', ['-c', SAVE_EXPORTS], { env: { ...fresh, DATA_DIR: dataDir, DISPATCH_URL: server.url, DOC_BLOCK_STATE: state }, stdio: ['ignore', 'pipe', 'pipe'] });
}, 60_000);

afterAll(async () => {
  await server?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('the documentation, block by block', () => {
  for (const block of blocks) {
    const name = `${block.page}:${block.line} (${block.heading})`;
    if (block.skip === undefined) {
      it(`runs ${name}`, { timeout: 120_000 }, async () => {
        // An elision stands for what the reader would have to fill in: in a comment it is prose, in a command a gap.
        expect(block.script.split('\n').filter((line) => line.replace(/(^|\s)#.*$/, '').includes('…'))).toEqual([]);
        // What the shell exported so far comes in, and what it exports at the end goes on to the next block.
        const script = `source "$DOC_BLOCK_STATE"\n${block.script}\n${SAVE_EXPORTS}`;
        const { status, stdout, stderr } = await runShell(script, server.url, { env: { PATH: process.env.PATH, DOC_BLOCK_STATE: state }, cwd: work });
        expect(status, `${stderr}\n${stdout}`).toBe(0);
        const unexpected = [...stdout.matchAll(/"error":\{"type":"\w+","code":"(\w+)"/g)].map((m) => m[1]!).filter((code) => !block.script.includes(code));
        expect(unexpected, stdout).toEqual([]);
      });
    } else if (SKIP_REASONS.includes(block.skip)) {
      it.skip(`skips ${name}: ${block.skip}`, () => {});
    } else {
      it(`has no reason to skip ${name}`, () => {
        expect.fail(`"${block.skip}" is not a reason to leave a block out; the reasons are: ${SKIP_REASONS.join('; ')}.`);
      });
    }
  }

  it('leaves the checkout as it was', () => {
    expect(gitStatus()).toBe(statusBefore);
  });
});
