// Builds dist/, the compiled program (`npm run build`, `npm run bench`, and `npm start` through src/cli/start.mjs),
// when its inputs changed since the last build, and does nothing otherwise. The inputs' fingerprint and stamp
// (src/cli/build-inputs.mjs: the sources, the generated tables, the bench scripts, tsconfig.json and the lock
// files, this script included) and what the build wrote are kept in dist/build.json.
//
// A rebuild never pulls a file from under a running program, which loads its chunks when it first needs them
// (a face's validators at its first call): chunks are named by their content and only ever added; every other
// file is written beside its place and renamed over it, the entry files last, once all they import is there.
// A chunk is deleted only when no build that a process may still run lists it: the current one, the one before
// it (a process may have started from its entry a moment ago), and any a live process has marked its own in
// dist/.running/<pid> (src/cli/running.ts). docs/cli.md § Command line.
// Plain JavaScript, run by node itself: it must work before anything is compiled, and decide quickly that
// nothing is to be done (esbuild is loaded only to build).
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { currentByStamp, DIST, fingerprint, inputFiles, MANIFEST, outputsPresent, readManifest, ROOT, stampOf } from './build-inputs.mjs';

const RUNNING = join(DIST, '.running');

const COMMON = { absWorkingDir: ROOT, outdir: 'dist', outbase: '.', platform: 'node', format: 'esm', target: 'node20', write: false, logLevel: 'warning' };
/** Every module compiled one for one (the generator's code, bench scripts, the tables), and the files copied beside them. */
const MODULES = {
  ...COMMON,
  entryPoints: ['src/**/*.ts', 'src/**/*.json', 'src/**/*.worker.mjs', 'generated/server/*.ts', 'generated/client/*.ts', 'generated/server/validators/*.js', 'generated/server/pipelines/*.js', 'generated/*.json', 'generated/mcp/*.json', 'generated/docs/**/*.md', 'bench/*.ts'],
  loader: { '.json': 'copy', '.mjs': 'copy', '.md': 'copy' },
};
/** The command-line program and the bench's catalogue server, bundled with their packages, split into chunks. */
const PROGRAM = {
  ...COMMON,
  entryPoints: ['src/cli/main.ts', 'bench/catalogue-server.ts'],
  bundle: true,
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  external: ['better-sqlite3', 'ts-morph', 'typescript', 'prettier', 'esbuild'],
  banner: { js: "import { createRequire as createBannerRequire } from 'node:module'; const require = createBannerRequire(import.meta.url);" },
};

/** Writes `contents` at `path` unless it is there already: beside it first, then renamed over it. */
function put(path, contents) {
  try {
    if (readFileSync(path).equals(contents)) return;
  } catch {
    // Not there yet.
  }
  mkdirSync(dirname(path), { recursive: true });
  const draft = `${path}.${process.pid}.tmp`;
  writeFileSync(draft, contents);
  renameSync(draft, path);
}

/** The builds live processes run, by id; the marks of processes that are gone are removed. */
function liveBuilds() {
  const live = new Set();
  for (const pid of existsSync(RUNNING) ? readdirSync(RUNNING) : []) {
    const mark = join(RUNNING, pid);
    if (!alive(Number(pid))) rmSync(mark, { force: true });
    else {
      try {
        live.add(readFileSync(mark, 'utf8').trim());
      } catch {
        // The process removed its mark as it exited.
      }
    }
  }
  return live;
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process is there, under another user.
    return error.code === 'EPERM';
  }
}

const files = inputFiles();
// The stamp is taken before the contents are read: a file written in between leaves a stamp that no longer
// matches, so the next run hashes again rather than trusting a build of older contents.
const stamp = stampOf(files);
const before = readManifest();
if (currentByStamp(before, stamp)) process.exit(0);
const id = fingerprint(files);
if (before?.id === id && outputsPresent(before)) {
  // Touched but unchanged (a checkout, a copy): the build stands; the new stamp spares the next run the hash.
  put(MANIFEST, Buffer.from(`${JSON.stringify({ ...before, stamp }, null, 1)}\n`));
  process.exit(0);
}

console.error(!before ? 'Building dist/.' : before.id === id ? 'Building dist/: files of the last build are missing.' : 'Building dist/: its sources changed since the last build.');
const chunksDir = join(DIST, 'chunks');
// A dist/ built before this script kept no record: its chunks count as the build before this one.
const unrecorded = { id: 'unrecorded', chunks: existsSync(chunksDir) ? readdirSync(chunksDir).map((name) => `chunks/${name}`) : [] };
let outputs;
try {
  // Loaded only now: a start whose build is current never loads esbuild.
  const { build } = await import('esbuild');
  const [modules, program] = await Promise.all([build(MODULES), build({ ...PROGRAM, define: { DISPATCH_BUILD: JSON.stringify(id) } })]);
  // The program's entry files replace the modules compiled from the same sources.
  outputs = new Map([...modules.outputFiles, ...program.outputFiles].map((file) => [relative(DIST, file.path), file.contents]));
} catch (error) {
  // A failed build: esbuild has printed its errors.
  if (!Array.isArray(error?.errors)) throw error;
  process.exit(1);
}
const entries = PROGRAM.entryPoints.map((entry) => entry.replace(/\.ts$/, '.js'));
const chunks = [...outputs.keys()].filter((file) => file.startsWith('chunks/'));
// Chunks first, their names their content: one already there is left alone. The entry files last.
for (const file of chunks) if (!existsSync(join(DIST, file))) put(join(DIST, file), outputs.get(file));
for (const [file, contents] of outputs) if (!file.startsWith('chunks/') && !entries.includes(file)) put(join(DIST, file), contents);
for (const file of entries) put(join(DIST, file), outputs.get(file));

const previous = before ? before.builds.find((b) => b.id === before.id) : unrecorded;
const live = liveBuilds();
const builds = [{ id, chunks }];
for (const kept of [previous, ...(before?.builds ?? []).filter((b) => live.has(b.id))]) if (kept && !builds.some((b) => b.id === kept.id)) builds.push(kept);
put(MANIFEST, Buffer.from(`${JSON.stringify({ id, stamp, outputs: [...outputs.keys()], builds }, null, 1)}\n`));

const keep = new Set(builds.flatMap((b) => b.chunks));
// A draft (`.tmp`) may be another build's, running at the same time.
for (const name of readdirSync(chunksDir)) if (!keep.has(`chunks/${name}`) && !name.endsWith('.tmp')) rmSync(join(chunksDir, name), { force: true });
