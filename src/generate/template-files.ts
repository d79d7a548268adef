/**
 * The files of a template directory that an emitter copies as they are (`templates/client/*.ts`,
 * `templates/python/*.py`), read again only when they change on disk, so `generate --watch` picks up edits.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { fromRoot } from '../package-root.js';

const cache = new Map<string, { mtimeMs: number; text: string }>();

/** The files of `templates/<dir>` whose name ends with `suffix`, by name, sorted. */
export function templateFiles(dir: string, suffix: string): Map<string, string> {
  const base = pathToFileURL(fromRoot('templates', dir) + '/');
  const files = new Map<string, string>();
  for (const name of readdirSync(base).filter((n) => n.endsWith(suffix)).sort()) {
    const url = new URL(name, base);
    const { mtimeMs } = statSync(url);
    let cached = cache.get(url.href);
    if (cached?.mtimeMs !== mtimeMs) cache.set(url.href, (cached = { mtimeMs, text: readFileSync(url, 'utf8') }));
    files.set(name, cached.text);
  }
  return files;
}
