/**
 * The YAML files of a faces directory, by name. Kept apart from the parser so that `check` can hash the
 * inputs without loading it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export function readFaceDirectory(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const name of readdirSync(dir)) {
    if (name.endsWith('.yaml')) files.set(name, readFileSync(join(dir, name), 'utf8'));
  }
  return files;
}
