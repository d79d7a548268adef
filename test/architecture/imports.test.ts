/**
 * The shape of the source tree: no module reaches itself through its imports; the core (`src/core/`,
 * `src/store/`, `src/providers/`, with the face-file model in `src/spec/` and `src/memo/` below them) imports no
 * face, no part of the server and no tool; the server and the dispatch program import no face module; the
 * generator imports no face and no part of the server; a face module reaches another only through the types of
 * the service it offers. Imports of every kind count: static, type-only, re-exports
 * and dynamic `import()`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { circles, importGraph } from './import-graph.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const graph = importGraph(root);

const FACE_CODE = ['faces'];
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
    expect(importsBetween(['core', 'store', 'providers', 'spec', 'memo', '.'], [...FACE_CODE, ...SERVER, ...TOOLS])).toEqual([]);
  });

  it('lets a face module reach another only through the types of the service it offers', () => {
    const faceOf = (file: string) => (file.startsWith('faces/') ? file.split('/')[1] : undefined);
    const across = [...graph].flatMap(([file, targets]) => [...targets].filter((t) => faceOf(file) && faceOf(t) && faceOf(t) !== faceOf(file)).map((t) => [file, t] as const));
    expect(across.filter(([, target]) => !target.endsWith('/service.ts'))).toEqual([]);
    // Types only: `import type` of the service, so that no value of the other face is loaded with this one.
    const valueImports = across.filter(([file, target]) => {
      const name = target.split('/').slice(1).join('/').replace(/\.ts$/, '.js');
      const statements = readFileSync(join(root, 'src', file), 'utf8').match(new RegExp(`^import .*'[./]*${name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}';$`, 'gm')) ?? [];
      return statements.some((statement) => !statement.startsWith('import type '));
    });
    expect(valueImports).toEqual([]);
    expect(across.map(([file, target]) => `${file} -> ${target}`)).toEqual(expect.arrayContaining(['faces/billing/services.ts -> faces/payments/service.ts', 'faces/billing/services.ts -> faces/usage/service.ts']));
  });

  it('lets the server and the dispatch program start, route and stop the face modules without naming any', () => {
    expect(importsBetween(['server', 'cli'], FACE_CODE)).toEqual([]);
  });

  it('lets the face modules build on the core alone, never on the server that runs them', () => {
    expect(importsBetween(['faces'], [...SERVER, ...TOOLS])).toEqual([]);
  });

  it('keeps the generator apart from the faces and the server', () => {
    expect(importsBetween(['generate', 'spec', 'memo', 'diff'], [...FACE_CODE, ...SERVER])).toEqual([]);
  });
});
