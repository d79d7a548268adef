/**
 * `npm run bench`: the real server against the bare node:http floor in the same run (req/s, p99 and their
 * ratio; single calls and best-effort batches), the transactional outbox (what writing an event adds to a
 * call, and webhook deliveries per second against raw POSTs to the same receiver), then the generator's
 * full-run and check times on the shipped faces and on a catalogue of the
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
import { createTestDatabase as createBenchDatabase } from '../test/helpers/postgres.js';
import { load, startChild, type LoadOptions, type LoadResult } from './http.js';
import { outbox } from './outbox.js';
import { BENCH_KEYS } from './keys.js';
import { ACTIONS, FACES, writeSyntheticFaces } from './synthetic-faces.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const call = { face: 'ai', action: 'generate', payload: { model: 'bench', prompt: 'Classify this.', input: 'I love it.' } };
const body = JSON.stringify(call);
const BATCH_ITEMS = 10;
const batchBody = JSON.stringify({ face: 'batch', action: 'run', payload: { mode: 'bestEffort', requests: Array.from({ length: BATCH_ITEMS }, () => call) } });

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

interface Row {
  name: string;
  options: Omit<LoadOptions, 'seconds'>;
}

/** The rows take turns with the floor, round after round, so that drift in the machine hits all alike. */
async function http(): Promise<void> {
  const database = await createBenchDatabase();
  const floor = await startChild('./floor-server.ts');
  const embedded = await startChild('./real-server.ts');
  const shared = await startChild('./real-server.ts', { BENCH_MODE: 'shared', DATABASE_URL: database.url });
  try {
    const headersOf = (keys: string[] = [], entity = 'bench') => keys.map((key, i) => ({ authorization: `Bearer ${key}`, 'x-entity-id': `${entity}${i}` }));
    const call = (port: number, keys: string[] | undefined, idempotent = false) => ({
      url: `http://127.0.0.1:${port}/do`,
      bodies: [body],
      headers: headersOf(keys),
      idempotent,
    });
    const batches = { url: `http://127.0.0.1:${embedded.port}/do`, bodies: [batchBody], headers: headersOf(embedded.batchKeys, 'batch') };
    const rows: Row[] = [
      { name: 'floor (node:http, parse + fixed reply)', options: { ...call(floor.port, ['-']) } },
      { name: 'embedded: whole pipeline, rate limits in process', options: call(embedded.port, embedded.keys) },
      { name: 'embedded + a new idempotency key per call (SQLite)', options: call(embedded.port, embedded.keys, true) },
      { name: `embedded: best-effort batch of ${BATCH_ITEMS} (rows are batches)`, options: batches },
      { name: 'shared: rate limits on Redis, store on PostgreSQL', options: call(shared.port, shared.keys) },
      { name: 'shared + a new idempotency key per call (PostgreSQL)', options: call(shared.port, shared.keys, true) },
    ];
    // Warm every server up (JIT, caches, connection pools) before measuring.
    for (const row of rows) await load({ ...row.options, seconds: 2 });
    const runs = new Map<string, LoadResult[]>(rows.map((r) => [r.name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const row of rows) runs.get(row.name)!.push(await load({ ...row.options, seconds: SECONDS }));
    }
    const floorRps = median(runs.get(rows[0]!.name)!.map((r) => r.requestsPerSecond));
    const floorP99 = median(runs.get(rows[0]!.name)!.map((r) => r.p99));
    console.log(`\nPOST /do, ai.generate (test model), 32 connections, ${BENCH_KEYS} keys; median of ${ROUNDS} alternating rounds of ${SECONDS} s`);
    console.table(
      Object.fromEntries(
        rows.map((row) => {
          const results = runs.get(row.name)!;
          const rps = median(results.map((r) => r.requestsPerSecond));
          const p99 = median(results.map((r) => r.p99));
          const non2xx = results.reduce((n, r) => n + r.non2xx, 0);
          return [row.name, { 'req/s': Math.round(rps), 'p99 ms': p99, 'of floor': `${((rps / floorRps) * 100).toFixed(1)}%`, 'p99 ×': (p99 / Math.max(floorP99, 1)).toFixed(2), 'non-2xx': non2xx }];
        }),
      ),
    );
    console.log('Targets (DESIGN.md): whole pipeline ≥ 80% of the floor, p99 ≤ 2× the floor\'s.');
    const rps = (name: string) => median(runs.get(name)!.map((r) => r.requestsPerSecond));
    const single = rps(rows[1]!.name);
    const items = rps(rows[3]!.name) * BATCH_ITEMS;
    console.log(`Batch: ${Math.round(items)} items/s in best-effort batches of ${BATCH_ITEMS}, ${(items / single).toFixed(2)}× the ${Math.round(single)} calls/s of single calls.`);
    // A batch answers 200 even when its requests fail; make sure they did not (a rate limit, say).
    const sample = await fetch(batches.url, { method: 'POST', headers: { ...batches.headers[0], 'content-type': 'application/json' }, body: batchBody });
    const failed = ((await sample.json()) as { data: { results: { status: number }[] } }).data.results.filter((r) => r.status !== 200).length;
    if (failed > 0) console.log(`Warning: ${failed} of ${BATCH_ITEMS} requests of a sample batch failed; the items/s above count them.`);
  } finally {
    // The servers must be gone before their database is dropped under them.
    await Promise.all([floor, embedded, shared].map(({ child }) => new Promise((r) => (child.once('exit', r), child.kill()))));
    await database.drop();
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
await outbox();
console.log('\nGenerator (in one process; the first run includes loading ts-morph and prettier)');
await timeGenerator('shipped faces', 'faces');
const synthetic = mkdtempSync(join(tmpdir(), 'dispatch-bench-faces-'));
writeSyntheticFaces(synthetic);
await timeGenerator(`synthetic (${FACES} faces / ${ACTIONS} actions)`, synthetic);
