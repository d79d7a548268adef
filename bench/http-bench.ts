/**
 * The HTTP section: POST /do on the node:http floor, on bare Fastify, on the real server in embedded
 * mode (SQLite, rate limits in process) and shared mode (PostgreSQL, Redis), and on the server a team would
 * write by hand instead (hand-written-server.ts), each a child process. Every row reports req/s, p99 and the
 * server's CPU time per request, beside the floor's, as the median of rounds that alternate the rows (each
 * hand-written row right after the embedded row it is measured against); a second table gives the ratios
 * of ours to the hand-written server and of shared to embedded. Both are written as JSON to
 * bench/results/http.json.
 */
import { randomInt } from 'node:crypto';
import { createTestDatabase as createBenchDatabase } from '../test/helpers/postgres.js';
import { CONNECTIONS, PIPELINE_CALL as generate, startChild, type Started } from './http.js';
import { BENCH_KEYS } from './keys.js';
import { writeResults } from './results-file.js';
import { mediansOf, runRounds, warnings, type Medians, type Row } from './rounds.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARMUP_SECONDS = 2;
const BATCH_ITEMS = 10;

const batchBody = JSON.stringify({ face: 'batch', action: 'run', payload: { mode: 'bestEffort', requests: Array.from({ length: BATCH_ITEMS }, () => generate) } });
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
// Well formed, so it passes the pattern check and costs a lookup (then a cached miss), as a stolen-looking key would.
const unknownKey = `sk_test_${Array.from({ length: 40 }, () => BASE62[randomInt(62)]).join('')}`;

// The calls that both the real server and the hand-written one answer, by the name their rows share.
const UNKNOWN_KEY = '401 unknown key';
const PLAIN = 'ai.generate';
const IDEMPOTENT = 'ai.generate + new idempotency key per call';
// The same call as PLAIN with every request built anew, as IDEMPOTENT's must be: what IDEMPOTENT is compared with.
const REBUILT = 'ai.generate, each request built anew';

/** One server's figures as a multiple of another's: req/s and CPU per call, p99 side by side. */
function ratio(first: Medians, second: Medians, target: string) {
  return {
    'req/s ratio': `${(first.requestsPerSecond / second.requestsPerSecond).toFixed(2)}×`,
    'cpu ratio': `${(first.cpuMicrosPerRequest / second.cpuMicrosPerRequest).toFixed(2)}×`,
    'p99 ms (each)': `${first.p99} / ${second.p99}`,
    target,
  };
}

export async function httpBench(): Promise<void> {
  const database = await createBenchDatabase();
  const servers: Started[] = [];
  try {
    const start = async (script: string, env?: Record<string, string>) => (servers.push(await startChild(script, env)), servers.at(-1)!);
    const floor = await start('./floor-server.ts');
    const fastify = await start('./fastify-server.ts');
    const embedded = await start('./real-server.ts');
    const shared = await start('./real-server.ts', { BENCH_MODE: 'shared', DATABASE_URL: database.url });
    const hand = await start('./hand-written-server.ts');

    const headersOf = (keys: string[], entity = 'bench') => keys.map((key, i) => ({ authorization: `Bearer ${key}`, 'x-entity-id': `${entity}${i}` }));
    const target = (server: Started, bodies: unknown[], keys: string[], build: { idempotent?: boolean; rebuilt?: boolean } = {}) => ({
      url: `http://127.0.0.1:${server.port}/do`,
      bodies: bodies.map((b) => JSON.stringify(b)),
      headers: headersOf(keys),
      ...build,
    });
    // The calls both kinds of server answer; `by hand` gets its own keys, each for the same entity `bench<i>`.
    const sharedCalls = (mode: string, server: Started) => ({
      [UNKNOWN_KEY]: { name: `${mode}: ${UNKNOWN_KEY}`, server, options: target(server, [generate], [unknownKey]), expect: 401 },
      [PLAIN]: { name: `${mode}: ${PLAIN}`, server, options: target(server, [generate], server.keys!) },
      [IDEMPOTENT]: { name: `${mode}: ${IDEMPOTENT}`, server, options: target(server, [generate], server.keys!, { idempotent: true }) },
      [REBUILT]: { name: `${mode}: ${REBUILT}`, server, options: target(server, [generate], server.keys!, { rebuilt: true }) },
    });
    const byHand = sharedCalls('by hand', hand);
    const realRows = (mode: string, server: Started): Row[] => {
      const calls = sharedCalls(mode, server);
      // In embedded mode each call's hand-written row follows it, so that both see the machine alike.
      const withPeer = (call: keyof typeof calls): Row[] => (mode === 'embedded' ? [calls[call], byHand[call]] : [calls[call]]);
      return [
        ...withPeer(UNKNOWN_KEY),
        { name: `${mode}: 404 unknown face`, server, options: target(server, [{ ...generate, face: 'nope' }], server.keys!), expect: 404 },
        // Each key reads itself: body i goes with key i.
        { name: `${mode}: keys.get`, server, options: target(server, server.keyIds!.map((id) => ({ face: 'keys', action: 'get', payload: { id } })), server.keys!) },
        ...withPeer(PLAIN),
        ...withPeer(IDEMPOTENT),
        ...(mode === 'embedded' ? withPeer(REBUILT) : []),
      ];
    };
    const batches = { url: `http://127.0.0.1:${embedded.port}/do`, bodies: [batchBody], headers: headersOf(embedded.batchKeys!, 'batch') };
    const rows: Row[] = [
      { name: 'floor: node:http, parse + fixed reply', server: floor, options: target(floor, [generate], ['-']) },
      { name: 'bare Fastify: one route, default JSON parser', server: fastify, options: target(fastify, [generate], ['-']) },
      ...realRows('embedded', embedded),
      { name: `embedded: best-effort batch of ${BATCH_ITEMS} (rows are batches)`, server: embedded, options: batches },
      ...realRows('shared', shared),
    ];

    const rounds = await runRounds(rows, { rounds: ROUNDS, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS });
    const medians = (row: Row) => mediansOf(rounds.get(row)!);
    const base = medians(rows[0]!);
    console.log(`\nPOST /do, ${CONNECTIONS} connections, ${BENCH_KEYS} keys; median of ${ROUNDS} alternating rounds of ${SECONDS} s`);
    console.log('embedded = SQLite + rate limits in process; shared = PostgreSQL + rate limits on Redis; ai.generate runs the test model.');
    console.log('by hand = Fastify, schema-validated body, @fastify/rate-limit, keys in SQLite behind lru-cache, one SQLite transaction per call.');
    console.table(
      Object.fromEntries(
        rows.map((row) => {
          const m = medians(row);
          return [
            row.name,
            {
              'req/s': Math.round(m.requestsPerSecond),
              'of floor (req/s)': `${((m.requestsPerSecond / base.requestsPerSecond) * 100).toFixed(1)}%`,
              'p99 ms': m.p99,
              'p99 × floor': (m.p99 / Math.max(base.p99, 0.1)).toFixed(2),
              'cpu µs/req': Math.round(m.cpuMicrosPerRequest),
              'of floor (cpu)': `${((base.cpuMicrosPerRequest / m.cpuMicrosPerRequest) * 100).toFixed(1)}%`,
              'non-2xx': rounds.get(row)!.reduce((n, r) => n + r.non2xx, 0),
            },
          ];
        }),
      ),
    );
    console.log("Targets (DESIGN.md): ai.generate ≥ 80% of the floor's req/s, p99 ≤ 2× the floor's.");
    console.log("cpu µs/req: the server process's user + system time (all threads) per response; in shared mode, PostgreSQL's and");
    console.log("Redis's own CPU is not in it. Each connection is a client of its own, starting its turn through the keys at its own place.");
    warnings(rows, rounds);

    const named = (name: string) => medians(rows.find((r) => r.name === name)!);
    const comparisons = {
      [`${PLAIN}: ours ÷ by hand`]: ratio(named(`embedded: ${PLAIN}`), named(`by hand: ${PLAIN}`), '≥ 2× req/s, ≤ 0.5× cpu, p99 ≤ by hand'),
      [`${UNKNOWN_KEY}: ours ÷ by hand`]: ratio(named(`embedded: ${UNKNOWN_KEY}`), named(`by hand: ${UNKNOWN_KEY}`), '≥ 1.5× req/s'),
      // The ceiling of that target: a 401 comes after the body is read and parsed (the contract's order), which is all
      // the floor does. By hand refuses before reading the body.
      [`${UNKNOWN_KEY}: the floor ÷ by hand`]: ratio(base, named(`by hand: ${UNKNOWN_KEY}`), 'what a 401 after the body could reach'),
      [`${IDEMPOTENT}: ours ÷ by hand`]: ratio(named(`embedded: ${IDEMPOTENT}`), named(`by hand: ${IDEMPOTENT}`), ''),
      [`${PLAIN}: shared ÷ embedded`]: ratio(named(`shared: ${PLAIN}`), named(`embedded: ${PLAIN}`), '≥ 0.6× req/s'),
      // Against the plain row built the same way: the idempotent row's load generator builds each request.
      ['ours: idempotent ÷ plain built alike']: ratio(named(`embedded: ${IDEMPOTENT}`), named(`embedded: ${REBUILT}`), '≥ 0.6× req/s'),
      ['ours: idempotent ÷ plain']: ratio(named(`embedded: ${IDEMPOTENT}`), named(`embedded: ${PLAIN}`), ''),
      ['by hand: idempotent ÷ plain built alike']: ratio(named(`by hand: ${IDEMPOTENT}`), named(`by hand: ${REBUILT}`), ''),
      ['by hand: idempotent ÷ plain']: ratio(named(`by hand: ${IDEMPOTENT}`), named(`by hand: ${PLAIN}`), ''),
    };
    console.log('\nRatios of the medians above (ours = embedded):');
    console.table(comparisons);

    const single = medians(rows.find((r) => r.name === 'embedded: ai.generate')!).requestsPerSecond;
    const items = medians(rows.find((r) => r.options === batches)!).requestsPerSecond * BATCH_ITEMS;
    console.log(`Batch: ${Math.round(items)} items/s in best-effort batches of ${BATCH_ITEMS}, ${(items / single).toFixed(2)}× the ${Math.round(single)} calls/s of single calls.`);
    // A batch answers 200 even when its requests fail; make sure they did not (a rate limit, say).
    const sample = await fetch(batches.url, { method: 'POST', headers: { ...batches.headers[0], 'content-type': 'application/json' }, body: batchBody });
    const failed = ((await sample.json()) as { data: { results: { status: number }[] } }).data.results.filter((r) => r.status !== 200).length;
    if (failed > 0) console.log(`Warning: ${failed} of ${BATCH_ITEMS} requests of a sample batch failed; the items/s above count them.`);

    writeResults('http', {
      settings: { seconds: SECONDS, rounds: ROUNDS, warmupSeconds: WARMUP_SECONDS, connections: CONNECTIONS, keys: BENCH_KEYS, batchItems: BATCH_ITEMS, nodeArgs: process.env.BENCH_NODE_ARGS ?? '' },
      rows: rows.map((row) => ({ name: row.name, expectedStatus: row.expect ?? '2xx', median: medians(row), rounds: rounds.get(row) })),
      comparisons,
    });
  } finally {
    // The servers must be gone before their database is dropped under them.
    await Promise.all(servers.map((server) => server.stop()));
    await database.drop();
  }
}
