/**
 * A parsed YAML file that remembers where every node came from, so that any later stage can turn a
 * JSON path (`['actions', 'generate', 'scope']`) back into a `line:col` for its diagnostics.
 */
import { isAlias, isMap, isScalar, isSeq, type Alias, type Document, type Node } from 'yaml';
import { diagnostic, type Diagnostic } from './diagnostics.js';
import { parseYaml, type Hole } from './yaml-repair.js';

export type { JsonPath } from './json-path.js';
import type { JsonPath } from './json-path.js';

export interface SourceFile {
  /** Path as shown in diagnostics (relative to the working directory). */
  readonly path: string;
  readonly text: string;
  readonly doc: Document.Parsed;
  readonly value: unknown;
  /** Position of the node at `path`; of its key when `key` is set; of the deepest existing parent otherwise. */
  at(path: JsonPath, key?: boolean): { file: string; line: number; col: number };
  /** The parts a YAML syntax error left unread: `value` is the rest of the file. */
  readonly holes: readonly Hole[];
  /** Whether `name` is written in a part left unread, where a reference to it may be declared. */
  unread(name: string): boolean;
}

export function parseSource(path: string, text: string): { source: SourceFile; diagnostics: Diagnostic[] } {
  const { doc, lineCounter, mistakes, holes, parsed } = parseYaml(text);
  const position = (offset: number) => {
    const { line, col } = lineCounter.linePos(offset);
    return { file: path, line, col };
  };
  const at = (jsonPath: JsonPath, key = false) => position(locate(doc, jsonPath, key));
  const diagnostics: Diagnostic[] = mistakes.map((mistake) => diagnostic('yaml-syntax', position(mistake.offset), { detail: mistake.detail }));
  for (const warning of doc.warnings) diagnostics.push(diagnostic('yaml-syntax', position(warning.pos[0]), { detail: warning.message.split('\n')[0]! }));
  if (parsed) findDuplicateKeys(doc, doc.contents, [], (p, k) => diagnostics.push(duplicate(at, p, k)));
  const recursive = parsed ? recursiveAliases(doc) : [];
  for (const alias of recursive) diagnostics.push(diagnostic('recursive-alias', position(alias.range?.[0] ?? 0), { name: alias.source }));
  // A value with no end would hang or overflow every later stage that walks it: the file is left out instead.
  const value = parsed && recursive.length === 0 ? doc.toJS({ maxAliasCount: 1000 }) : undefined;
  const unread = (name: string) => value === undefined || holes.some((hole) => hole.text.includes(name));
  return { source: { path, text, doc, value, at, holes, unread }, diagnostics };
}

function duplicate(at: SourceFile['at'], parent: (string | number)[], key: string): Diagnostic {
  const where = at([...parent, key], true);
  if (parent.length === 1 && parent[0] === 'actions') {
    return diagnostic('duplicate-action', where, { action: key });
  }
  return diagnostic('duplicate-key', where, { key });
}

/** Reports every key that occurs twice in one mapping, at the position of the second occurrence. */
function findDuplicateKeys(
  doc: Document.Parsed,
  node: unknown,
  path: (string | number)[],
  report: (path: (string | number)[], key: string) => void,
): void {
  if (isMap(node)) {
    const seen = new Set<string>();
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      if (seen.has(key)) report(path, key);
      seen.add(key);
      findDuplicateKeys(doc, pair.value, [...path, key], report);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => findDuplicateKeys(doc, item, [...path, i], report));
  }
}

/** The aliases inside the node their anchor names (`&a [*a]`): valid YAML, but a value without end. */
function recursiveAliases(doc: Document.Parsed): Alias[] {
  const found: Alias[] = [];
  const open = new Set<unknown>();
  const visit = (node: unknown): void => {
    if (isAlias(node)) {
      if (open.has(node.resolve(doc))) found.push(node);
      return;
    }
    const children = isMap(node) ? node.items.flatMap((pair) => [pair.key, pair.value]) : isSeq(node) ? node.items : [];
    open.add(node);
    for (const child of children) visit(child);
    open.delete(node);
  };
  visit(doc.contents);
  return found;
}

/** Offset of the node at `path`, following aliases; stops at the deepest node that exists. */
function locate(doc: Document.Parsed, path: JsonPath, key: boolean): number {
  let node: unknown = doc.contents;
  let offset = rangeStart(node);
  for (let i = 0; i < path.length; i++) {
    if (isAlias(node)) node = node.resolve(doc);
    const segment = path[i];
    const last = i === path.length - 1;
    if (isMap(node)) {
      const pair = [...node.items].reverse().find((p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === String(segment));
      if (!pair) return offset;
      node = key && last ? pair.key : (pair.value ?? pair.key);
    } else if (isSeq(node) && /^\d+$/.test(String(segment))) {
      // JSON pointers (ajv's instancePath) name array elements by their index as text.
      node = node.items[Number(segment)];
      if (node === undefined) return offset;
    } else {
      return offset;
    }
    offset = rangeStart(node) ?? offset;
  }
  return offset;
}

function rangeStart(node: unknown): number {
  return (node as Node | null)?.range?.[0] ?? 0;
}
