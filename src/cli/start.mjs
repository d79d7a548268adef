// `npm start`: the compiled `dispatch` program (package.json passes `serve`), built first when its inputs
// changed. The check runs here, in the process that then runs the program, and on unchanged sources costs a
// walk of the inputs' sizes and times (src/cli/build-inputs.mjs); only when they moved does src/cli/build-dist.mjs
// run, as a process of its own, to hash the contents and build if they changed. So a start on an unchanged tree
// starts no second Node and loads no esbuild. docs/cli.md § Command line.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { currentByStamp, inputFiles, readManifest, stampOf } from './build-inputs.mjs';

if (!currentByStamp(readManifest(), stampOf(inputFiles()))) {
  const build = spawnSync(process.execPath, [fileURLToPath(new URL('build-dist.mjs', import.meta.url))], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
await import(new URL('../../dist/src/cli/main.js', import.meta.url).href);
