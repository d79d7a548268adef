/**
 * The large catalogue (test/fixtures/large: 42 faces, 276 actions), or some of its faces, generated into a
 * scratch project outside the repository, as the scale and MCP sections and the tests that serve it use it:
 * its tables compiled to JavaScript, each action's example result written beside them for its handler to
 * answer (load-catalogue.ts serves them), and a store migrated with the bench keys.
 */
import { copyFileSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { generate } from '../src/generate/index.js';
import { writeGenerated } from '../src/generate/write.js';
import { fromRoot } from '../src/package-root.js';
import { buildCatalog } from '../src/spec/index.js';
import type { Catalog } from '../src/spec/model.js';
import { createKey } from '../src/store/keys.js';
import { openShippedStore } from '../src/server/shipped.js';
import { BENCH_KEYS } from './keys.js';

export const LARGE = fromRoot('test', 'fixtures', 'large', 'faces');

export interface Prepared {
  dir: string;
  dataDir: string;
  /** Keys with every scope, key i for entity `bench<i>`. */
  keys: string[];
  actions: number;
  /** The catalogue as built, with every action's examples. */
  catalog: Catalog;
}

/**
 * Generates the catalogue (all of the large one, or only `faces` of it) into a scratch project, compiles its
 * tables to JavaScript, writes each action's example result, and migrates a store with the bench keys.
 */
export async function prepare(faces?: string[]): Promise<Prepared> {
  const dir = mkdtempSync(join(tmpdir(), 'dispatch-bench-scale-'));
  let facesDir = LARGE;
  if (faces) {
    facesDir = join(dir, 'faces');
    mkdirSync(facesDir);
    for (const name of ['platform.yaml', ...faces]) copyFileSync(join(LARGE, name), join(facesDir, name));
  }
  const { catalog, diagnostics } = buildCatalog(facesDir);
  if (!catalog) throw new Error(`The catalogue does not build:\n${diagnostics.map((d) => d.message).join('\n')}`);
  writeGenerated(join(dir, 'generated'), await generate(catalog));
  const server = join(dir, 'generated', 'server');
  await build({ entryPoints: [join(server, 'dispatch.ts'), join(server, 'platform.ts'), join(server, 'scopes.ts')], outdir: server, format: 'esm', platform: 'node', logLevel: 'warning' });
  // The validators require ajv's runtime, found from the scratch project as from the repository.
  symlinkSync(fromRoot('node_modules'), join(dir, 'node_modules'));
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  const results = Object.fromEntries(catalog.faces.flatMap((f) => f.actions.map((a) => [a.id, a.examples[0]?.result ?? {}])));
  writeFileSync(join(dir, 'results.json'), JSON.stringify(results));
  const dataDir = join(dir, 'data');
  const db = await openShippedStore({ dataDir });
  const keys: string[] = [];
  for (let i = 0; i < BENCH_KEYS; i++) {
    keys.push((await createKey(db, { mode: 'test', scopes: ['*'], entities: [`bench${i}`], tier: 'enterprise' })).secret);
  }
  await db.destroy();
  return { dir, dataDir, keys, actions: catalog.faces.reduce((n, f) => n + f.actions.length, 0), catalog };
}

/** The environment of bench/catalogue-server.ts serving `prepared` on `port`. */
export const serverEnv = (prepared: Prepared, port: number) => ({ ...process.env, CATALOGUE_DIR: prepared.dir, DATA_DIR: prepared.dataDir, PORT: String(port) });
