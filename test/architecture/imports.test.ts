/**
 * The shape of the source tree: no module reaches itself through its imports; the core (`src/core/`,
 * `src/store/`, with the face-file model in `src/spec/` and `src/memo/` below them) imports no face, no part of
 * the server and no tool; the generator imports no face and no part of the server. Imports of every kind count: static,
 * type-only, re-exports and dynamic `import()`.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { circles, importGraph } from './import-graph.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const graph = importGraph(root);

const FACE_CODE = ['faces', 'auth', 'billing', 'email', 'payments', 'storage', 'usage', 'webhooks'];
const SERVER = ['server'];
const TOOLS = ['cli', 'generate', 'diff', 'scaffold', 'client-package'];

const folderOf = (file: string) => (file.includes('/') ? file.slice(0, file.indexOf('/')) : '.');

/** The imports from modules of `from` folders into modules of `to` folders, as `a.ts -> b.ts`. */
function importsBetween(from: readonly string[], to: readonly string[]): string[] {
  return [...graph].flatMap(([file, targets]) => (from.includes(folderOf(file)) ? [...targets].filter((t) => to.includes(folderOf(t))).map((t) => `${file} -> ${t}`) : []));
}

describe('the import graph', () => {
  it('reads type-only and dynamic imports as imports', () => {
    expect(graph.get('server/call.ts')).toContain('core/answer.ts');
    expect(graph.get('cli/keys.ts')).toContain('server/config.ts');
  });

  it('has no circles', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('keeps the core free of faces, the server and the tools', () => {
    expect(importsBetween(['core', 'store', 'spec', 'memo', '.'], [...FACE_CODE, ...SERVER, ...TOOLS])).toEqual([]);
  });

  it('keeps the generator apart from the faces and the server', () => {
    expect(importsBetween(['generate', 'spec', 'memo', 'diff'], [...FACE_CODE, ...SERVER])).toEqual([]);
  });
});
