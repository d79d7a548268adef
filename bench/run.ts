/**
 * `npm run bench`: the real server against the bare node:http floor in the same run (req/s, p99 and their
 * ratio), then the generator's full-run and check times on the shipped faces and on a catalogue of the
 * advertised size. Targets (DESIGN.md): throughput ≥ 80% of the floor, p99 ≤ 2× the floor's; generator
 * full run ≤ 3 s and check ≤ 0.5 s for 276 actions.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkGenerated } from '../src/generate/check.js';
import { generate } from '../src/generate/index.js';
import { writeGenerated } from '../src/generate/write.js';
import { buildCatalog } from '../src/spec/index.js';
import { load, startChild, type LoadResult } from './http.js';
import { ACTIONS, FACES, writeSyntheticFaces } from './synthetic-faces.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const body = JSON.stringify({ face: 'ai', action: 'generate', payload: { model: 'bench', prompt: 'Classify this.', input: 'I love it.' } });

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Floor and server take turns, round after round, so that drift in the machine hits both alike. */
async function http(): Promise<void> {
  const floor = await startChild('./floor-server.ts');
  const real = await startChild('./real-server.ts');
  try {
    const headers = { authorization: `Bearer ${real.key}`, 'x-entity-id': 'bench' };
    const targets = { floor: `http://127.0.0.1:${floor.port}/do`, real: `http://127.0.0.1:${real.port}/do` };
    // Warm both up (JIT, caches) before measuring.
    for (const url of Object.values(targets)) await load({ url, body, headers, seconds: 2 });
    const runs = { floor: [] as LoadResult[], real: [] as LoadResult[] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of ['floor', 'real'] as const) runs[name].push(await load({ url: targets[name], body, headers, seconds: SECONDS }));
    }
    if (runs.real.some((r) => r.non2xx > 0)) throw new Error('the real server answered non-2xx responses');
    const f = { rps: median(runs.floor.map((r) => r.requestsPerSecond)), p99: median(runs.floor.map((r) => r.p99)) };
    const r = { rps: median(runs.real.map((x) => x.requestsPerSecond)), p99: median(runs.real.map((x) => x.p99)) };
    console.log(`\nPOST /do, ai.generate (test model), 32 connections; median of ${ROUNDS} alternating rounds of ${SECONDS} s`);
    console.table({
      'floor (node:http, parse + fixed reply)': { 'req/s': Math.round(f.rps), 'p99 ms': f.p99 },
      'Unified Dispatch (whole pipeline)': { 'req/s': Math.round(r.rps), 'p99 ms': r.p99 },
    });
    console.log(`throughput ratio: ${((r.rps / f.rps) * 100).toFixed(1)}% of the floor (target ≥ 80%)`);
    console.log(`p99 ratio: ${(r.p99 / Math.max(f.p99, 1)).toFixed(2)}× the floor's (target ≤ 2×)`);
  } finally {
    floor.child.kill();
    real.child.kill();
  }
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

await http();
console.log('\nGenerator (in one process; the first run includes loading ts-morph and prettier)');
await timeGenerator('shipped faces', 'faces');
const synthetic = mkdtempSync(join(tmpdir(), 'dispatch-bench-faces-'));
writeSyntheticFaces(synthetic);
await timeGenerator(`synthetic (${FACES} faces / ${ACTIONS} actions)`, synthetic);
