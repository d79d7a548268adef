/**
 * The generator section: full-run and check times on the shipped faces and on a synthetic catalogue of
 * the advertised size, in this process.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkGenerated } from '../src/generate/check.js';
import { generate } from '../src/generate/index.js';
import { writeGenerated } from '../src/generate/write.js';
import { buildCatalog } from '../src/spec/index.js';
import { ACTIONS, FACES, writeSyntheticFaces } from './synthetic-faces.js';

export async function generator(): Promise<void> {
  console.log('\nGenerator (in one process; the first run includes loading ts-morph and prettier)');
  await timeGenerator('shipped faces', 'faces');
  const synthetic = mkdtempSync(join(tmpdir(), 'dispatch-bench-faces-'));
  writeSyntheticFaces(synthetic);
  await timeGenerator(`synthetic (${FACES} faces / ${ACTIONS} actions)`, synthetic);
}

async function timeGenerator(label: string, facesDir: string): Promise<void> {
  const out = mkdtempSync(join(tmpdir(), 'dispatch-bench-out-'));
  let started = performance.now();
  const { catalog } = buildCatalog(facesDir);
  if (!catalog) throw new Error(`${facesDir} does not build`);
  const files = await generate(catalog);
  writeGenerated(out, files);
  const full = performance.now() - started;
  started = performance.now();
  const again = buildCatalog(facesDir);
  checkGenerated(out, await generate(again.catalog!));
  const check = performance.now() - started;
  const actions = catalog.faces.reduce((n, f) => n + f.actions.length, 0);
  console.log(`${label}: ${catalog.faces.length} faces, ${actions} actions, ${files.size} files — full run ${Math.round(full)} ms, check ${Math.round(check)} ms`);
}
