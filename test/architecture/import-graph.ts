/**
 * The import graph of `src/`: every relative import of every module, as TypeScript's own pre-processor reads
 * it (static, type-only, re-exports and dynamic `import()`), resolved to the files it names.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';
import ts from 'typescript';

export type ImportGraph = ReadonlyMap<string, ReadonlySet<string>>;

/** Source files of the program: the browser pages (dashboard, reference) are served as they are and left out. */
const SOURCE = /\.(ts|mts|mjs)$/;
const PAGES = new Set(['dashboard', 'reference']);

/** Every module under `root/src`, by its path from `src/` (`server/pipeline.ts`), and the modules it imports. */
export function importGraph(root: string): ImportGraph {
  const src = join(root, 'src');
  const files = listFiles(src).filter((file) => SOURCE.test(file) && !PAGES.has(file.split('/')[0]!));
  const known = new Set(files);
  const graph = new Map<string, Set<string>>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(join(src, file), 'utf8'), true, true);
    const targets = new Set<string>();
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = posix.normalize(posix.join(posix.dirname(file), fileName));
      const resolved = [target, target.replace(/\.js$/, '.ts'), target.replace(/\.mjs$/, '.mts')].find((candidate) => known.has(candidate));
      if (resolved) targets.add(resolved);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** The strongly connected parts of more than one module (Tarjan), each sorted: the import circles. */
export function circles(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const part: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      part.push(member);
    } while (member !== node);
    if (part.length > 1 || graph.get(node)?.has(node)) found.push(part.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split(sep).join('/'));
}

