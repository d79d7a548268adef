/**
 * `npm start` builds `dist/` only when its sources changed, and a rebuild never takes a file from under a
 * server running from it: on a copy of this checkout without `dist/` (a fresh clone), a server started from the
 * build still answers a face it had not called after another start's rebuild, unchanged or after a change; a
 * start with unchanged sources touches no file, and one whose sources were touched but not changed builds
 * nothing; an edit that keeps a file's size and modification time still rebuilds; chunks go only once no build
 * a live process runs needs them.
 */
import { execFile, execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { printedKey, ROOT, serve, type ServeProcess } from '../helpers/process.js';

let copy: string;
let server: ServeProcess | undefined;
let key: string;

// Builds run as child processes without blocking the test's event loop: a build takes long enough for a
// synchronous wait to stall the test runner's own messages.
const run = promisify(execFile);

/**
 * `npm start` in the copy (src/cli/start.mjs, which builds when it must and then runs the program), here with
 * `--version` so that the program exits at once; what it printed.
 */
async function startsBuild(): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, ['src/cli/start.mjs', '--version'], { cwd: copy, encoding: 'utf8' });
}

/** A change of the sources that a face's validators, which the server loads at the face's first call, are built from. */
function changeValidators(face: string): void {
  appendFileSync(join(copy, 'generated', 'server', 'validators', `${face}.js`), `\nexport const changed${Date.now()} = true;\n`);
}

/** Every file under dist/ but the processes' marks, with what changes when it is written. */
function distFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const path of readdirSync(join(copy, 'dist'), { recursive: true, encoding: 'utf8' })) {
    const stat = statSync(join(copy, 'dist', path));
    if (stat.isFile() && !path.startsWith('.running')) files.set(path, `${stat.ino}:${stat.mtimeMs}`);
  }
  return files;
}

const chunks = () => new Set(readdirSync(join(copy, 'dist', 'chunks')));
const manifest = () => JSON.parse(readFileSync(join(copy, 'dist', 'build.json'), 'utf8')) as { id: string; builds: Array<{ id: string; chunks: string[] }> };

async function list(face: string): Promise<number> {
  const response = await fetch(`${server!.url}/do`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'x-entity-id': 'acme', 'content-type': 'application/json' },
    body: JSON.stringify({ face, action: 'list', payload: {} }),
  });
  return response.status;
}

beforeAll(() => {
  copy = mkdtempSync(join(tmpdir(), 'dispatch-build-'));
  for (const dir of ['src', 'generated']) cpSync(join(ROOT, dir), join(copy, dir), { recursive: true });
  cpSync(join(ROOT, 'bench'), join(copy, 'bench'), { recursive: true, filter: (from) => !from.includes('/bench/results') });
  for (const file of ['package.json', 'package-lock.json', 'tsconfig.json']) cpSync(join(ROOT, file), join(copy, file));
  symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(copy, 'node_modules'));
});

afterAll(async () => {
  await server?.stop();
  rmSync(copy, { recursive: true, force: true });
});

describe('building dist/ for npm start', () => {
  it('builds a fresh checkout, and serves from it', async () => {
    await run('npm', ['run', 'build', '--silent'], { cwd: copy });
    server = await serve({ DATA_DIR: mkdtempSync(join(tmpdir(), 'dispatch-build-data-')) }, join(copy, 'dist', 'src', 'cli', 'main.js'));
    key = printedKey(server.output());
    expect(await list('keys')).toBe(200);
  }, 120_000);

  it('starts with unchanged sources without building: no file under dist/ is written', async () => {
    const before = distFiles();
    const version = (JSON.parse(readFileSync(join(copy, 'package.json'), 'utf8')) as { version: string }).version;
    expect(await startsBuild()).toEqual({ stdout: `${version}\n`, stderr: '' });
    expect(distFiles()).toEqual(before);
  }, 60_000);

  it('starts with sources touched but unchanged without building: only the record of the build is rewritten, once', async () => {
    const before = distFiles();
    const now = new Date();
    utimesSync(join(copy, 'src', 'cli', 'main.ts'), now, now);
    expect((await startsBuild()).stderr).toBe('');
    const after = distFiles();
    expect([...after.keys()].filter((file) => after.get(file) !== before.get(file))).toEqual(['build.json']);
    await startsBuild();
    expect(distFiles()).toEqual(after);
  }, 60_000);

  it('rebuilds after a source change, and the running server still loads a face it had not called', async () => {
    const before = chunks();
    changeValidators('events');
    await startsBuild();
    // The change made a new chunk of the events validators, and of the events checks that import them, beside
    // the ones the running server would load.
    expect([...chunks()].filter((name) => !before.has(name) && name.startsWith('events-'))).toHaveLength(2);
    expect(await list('events')).toBe(200);
  }, 120_000);

  it('keeps the chunks of a build a live process runs through later rebuilds, and deletes them once it has stopped', async () => {
    // The build the server runs, as it marked it.
    const first = readFileSync(join(copy, 'dist', '.running', String(server!.child.pid)), 'utf8');
    changeValidators('webhooks');
    await startsBuild();
    // Two builds on, the server's build is kept only because the server runs it.
    expect(manifest().builds.map((build) => build.id)).toContain(first);
    expect(await list('webhooks')).toBe(200);
    const firstChunks = manifest().builds.find((build) => build.id === first)!.chunks;
    await server!.stop();
    server = undefined;
    changeValidators('keys');
    await startsBuild();
    const kept = manifest().builds;
    expect(kept).toHaveLength(2);
    expect(kept.map((build) => build.id)).not.toContain(first);
    const needed = new Set(kept.flatMap((build) => build.chunks.map((chunk) => chunk.slice('chunks/'.length))));
    expect(chunks()).toEqual(needed);
    expect(firstChunks.filter((chunk) => !needed.has(chunk.slice('chunks/'.length))).length).toBeGreaterThan(0);
  }, 180_000);

  it('rebuilds after an edit that keeps the size and the modification time of the file', async () => {
    const file = join(copy, 'generated', 'server', 'validators', 'keys.js');
    const text = readFileSync(file, 'utf8');
    const edited = text.replace(/= true;\n$/, '= null;\n');
    expect(edited.length).toBe(text.length);
    expect(edited).not.toBe(text);
    const { mtimeNs } = statSync(file, { bigint: true });
    writeFileSync(file, edited);
    // Node sets times only to the microsecond; touch sets the nanoseconds back exactly.
    execFileSync('touch', ['-m', '-d', `@${mtimeNs / 1_000_000_000n}.${String(mtimeNs % 1_000_000_000n).padStart(9, '0')}`, file]);
    expect(statSync(file, { bigint: true }).mtimeNs).toBe(mtimeNs);
    const id = manifest().id;
    expect((await startsBuild()).stderr).toContain('its sources changed');
    expect(manifest().id).not.toBe(id);
  }, 120_000);
});
