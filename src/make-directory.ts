/**
 * `mkdir -p` that always ends. Node's own (`mkdirSync(dir, { recursive: true })`) never returns when the file
 * system answers ENOENT for a directory whose parent exists (any path under /proc): it takes the answer for a
 * missing parent and tries again, forever. Here each missing parent is made once, and a refusal is thrown as it
 * is, with its code and path, for the caller to explain.
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

export function makeDirectory(dir: string): void {
  try {
    create(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(dir) === dir) throw error;
    makeDirectory(dirname(dir));
    // The parent is there now: a second ENOENT is the file system's refusal, not a missing parent.
    create(dir);
  }
}

/** One mkdir, content with a directory already there (another process starting at once may have made it). */
function create(dir: string): void {
  try {
    mkdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || !statSync(dir).isDirectory()) throw error;
  }
}
