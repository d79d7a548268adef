/**
 * The block of a face file a line belongs to, read from indentation alone, as a person reads it, so that it
 * holds in a file that does not parse: a top-level key with the lines under it, or, under `actions`, `events`,
 * `schemas` and `errors`, one entry with its lines. A syntax error leaves out the one block it is in.
 */
import type { JsonPath } from './json-path.js';

/** The top-level keys whose entries stand on their own: one broken action leaves the others readable. */
const COLLECTIONS = new Set(['actions', 'events', 'schemas', 'errors']);

export interface Block {
  /** First and last line (0-based, inclusive). */
  from: number;
  to: number;
  /** The mapping that holds the block, which may miss a key it requires once the block is left out. */
  parent: JsonPath;
}

export const indentOf = (line: string) => line.length - line.trimStart().length;

/** A line that holds something: not blank, not only a comment. */
export const isContent = (line: string | undefined) => line !== undefined && line.trim() !== '' && !line.trimStart().startsWith('#');

/** The key a line starts with (`summary` of `  - summary: x`), if it starts with one. */
export function keyOf(line: string): string | undefined {
  const match = /^\s*(?:-\s+)?(?:"([^"]*)"|'([^']*)'|([^\s"'#{[][^#]*?))\s*:(?:\s|$)/.exec(line);
  return match ? (match[1] ?? match[2] ?? match[3]) : undefined;
}

/** The block that line `at` (0-based) is in. */
export function blockAround(lines: readonly string[], at: number): Block {
  const next = (after: number, until: number, fits: (indent: number) => boolean) => {
    for (let i = after + 1; i <= until; i++) if (isContent(lines[i]) && fits(indentOf(lines[i]!))) return i;
    return undefined;
  };
  let root = at;
  while (root > 0 && !(isContent(lines[root]) && indentOf(lines[root]!) === 0)) root--;
  const rootEnd = (next(at, lines.length - 1, (indent) => indent === 0) ?? lines.length) - 1;
  const rootKey = keyOf(lines[root]!);
  const whole: Block = { from: root, to: rootEnd, parent: [] };
  if (rootKey === undefined || !COLLECTIONS.has(rootKey) || at === root) return whole;
  const first = next(root, rootEnd, () => true);
  if (first === undefined) return whole;
  const entryIndent = indentOf(lines[first]!);
  // A line indented less than the entries (but more than the top-level key) belongs to the entry above it.
  let start = Math.max(at, first);
  while (start > first && !(isContent(lines[start]) && indentOf(lines[start]!) === entryIndent)) start--;
  const end = (next(Math.max(at, start), rootEnd, (indent) => indent <= entryIndent) ?? rootEnd + 1) - 1;
  return { from: start, to: end, parent: [rootKey] };
}
