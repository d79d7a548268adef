/**
 * Positions of changes in the working tree's face files: a change names a file and a path, and the parsed
 * file turns that into `file:line:col`. List elements named by what they hold are looked up in the file's
 * YAML value, in the order the file writes them. A file that is gone (a removed face) is pointed at its
 * first line, so the diagnostic still names it.
 */
import { basename, join } from 'node:path';
import { shownPath } from '../spec/shown-path.js';
import { parseSource, type JsonPath, type SourceFile } from '../spec/source.js';
import type { Element, Where, WherePath } from './change.js';

export interface Position {
  file: string;
  line: number;
  col: number;
}

export type Locate = (where: Where) => Position;

/** `files` are the face files by name, as read from `dir`. */
export function locator(dir: string, files: Map<string, string>): Locate {
  const sources = new Map<string, SourceFile>();
  const shown = (name: string) => shownPath(join(dir, name));
  for (const [name, text] of files) sources.set(basename(name), parseSource(shown(name), text).source);
  return (where) => {
    const source = sources.get(where.file);
    if (!source) return { file: shown(where.file), line: 1, col: 1 };
    const written = where.prefer?.map((s) => ({ key: s.key, ...resolvePath(source.value, s.path) })).find((s) => s.complete);
    return source.at(written?.path ?? resolvePath(source.value, where.path).path, (written ?? where).key ?? false);
  };
}

/**
 * The JSON path of `path` in the YAML value, its elements turned into their indices. `complete` is false
 * when a node is not written; an element that is not found ends the path at its list, the deepest node
 * there is to point at.
 */
function resolvePath(value: unknown, path: WherePath): { path: JsonPath; complete: boolean } {
  const out: (string | number)[] = [];
  let node = value;
  let complete = true;
  for (const segment of path) {
    if (typeof segment === 'object') {
      const index = Array.isArray(node) ? node.findIndex((item) => holds(item, segment)) : -1;
      if (index < 0) return { path: out, complete: false };
      out.push(index);
      node = (node as unknown[])[index];
    } else {
      complete &&= isRecord(node) && String(segment) in node;
      out.push(segment);
      node = complete ? (node as Record<string, unknown>)[segment] : undefined;
    }
  }
  return { path: out, complete };
}

/** True when a list item is the element: its value, or its `by` key's value. */
function holds(item: unknown, element: Element): boolean {
  const value = element.by === undefined ? item : isRecord(item) ? item[element.by] : undefined;
  return value !== undefined && String(value) === element.element;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object';
}
