/**
 * Marks this process as one running a given build of the compiled program: `dist/.running/<pid>` holds the
 * build's id until the process exits. A rebuild (src/cli/build-dist.mjs) keeps the chunks of every build a
 * live process has marked, since the process may still load them on demand. Marking is best effort: a `dist/`
 * this process may not write only loses that protection.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fromRoot } from '../package-root.js';

export function markRunning(build: string): void {
  const dir = fromRoot('dist', '.running');
  const mark = join(dir, String(process.pid));
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(mark, build);
  } catch {
    return;
  }
  process.once('exit', () => rmSync(mark, { force: true }));
}
