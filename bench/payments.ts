/**
 * The payments section: payment intents per second over HTTP, each call a `payments.createIntent` that
 * creates and confirms a $19.99 card payment at once, beside the pipeline row (`ai.generate`) on the same
 * server in the same alternating rounds (bench/rounds.ts), in embedded mode (SQLite) and shared mode
 * (PostgreSQL + Redis). Test keys get the sandbox processor (no network), so an intent costs what this server
 * does for it: the intent row, its claim and moves, a ledger transfer and an event, in the call's transaction.
 * Per mode: intents/s, p99 and intents/s ÷ pipeline req/s; the figures go to bench/results/payments.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase } from '../test/helpers/postgres.js';
import { CONNECTIONS, doTarget, PIPELINE_CALL, startChild, type Started } from './http.js';
import { BENCH_KEYS } from './keys.js';
import { mediansOf, runRounds, warnings, type Row } from './rounds.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARMUP_SECONDS = 2;

// 4242… is the sandbox's card that succeeds: every call charges, none is declined (402) or held.
const createIntent = {
  face: 'payments',
  action: 'createIntent',
  payload: { amount: 1999, currency: 'usd', paymentMethod: { card: { number: '4242424242424242', expMonth: 12, expYear: 2030 } }, confirm: true },
};

export async function payments(): Promise<void> {
  const database = await createTestDatabase();
  const servers: Started[] = [];
  try {
    const start = async (env: Record<string, string>) => (servers.push(await startChild('./real-server.ts', env)), servers.at(-1)!);
    const modes = [
      { mode: 'embedded', server: await start({}) },
      { mode: 'shared', server: await start({ BENCH_MODE: 'shared', DATABASE_URL: database.url }) },
    ];
    // An intent is mostly database work, which in shared mode PostgreSQL does on the same two cores: count its CPU too.
    const pairs = modes.map(({ mode, server }) => {
      const database = mode === 'shared' ? { database: 'postgres' } : {};
      const pipeline: Row = { name: `${mode}: ai.generate`, server, options: doTarget(server, [PIPELINE_CALL]), ...database };
      const intents: Row = { name: `${mode}: payments.createIntent, confirm: true`, server, options: doTarget(server, [createIntent]), ...database };
      return { mode, pipeline, intents };
    });
    const rows = pairs.flatMap(({ pipeline, intents }) => [pipeline, intents]);
    const rounds = await runRounds(rows, { rounds: ROUNDS, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS });
    const medians = (row: Row) => mediansOf(rounds.get(row)!);

    const results = pairs.map(({ mode, pipeline, intents }) => {
      const p = medians(pipeline);
      const i = medians(intents);
      return {
        mode,
        intentsPerSecond: i.requestsPerSecond,
        p99: i.p99,
        pipelineRequestsPerSecond: p.requestsPerSecond,
        pipelineP99: p.p99,
        // The steadier figure on a busy machine: both rows met the same drift, round by round.
        intentsPerPipelineRequest: i.requestsPerSecond / p.requestsPerSecond,
        cpuMicrosPerIntent: i.cpuMicrosPerRequest,
        pipelineCpuMicrosPerRequest: p.cpuMicrosPerRequest,
        databaseCpuMicrosPerIntent: i.databaseCpuMicrosPerRequest,
      };
    });
    console.log(`\nPayment intents: POST /do payments.createIntent (create + confirm, sandbox processor) beside ai.generate, ${CONNECTIONS} connections, ${BENCH_KEYS} keys; median of ${ROUNDS} alternating rounds of ${SECONDS} s`);
    console.table(
      Object.fromEntries(
        results.map((r) => [
          r.mode,
          {
            'intents/s': Math.round(r.intentsPerSecond),
            'p99 ms': r.p99,
            'pipeline req/s': Math.round(r.pipelineRequestsPerSecond),
            'pipeline p99 ms': r.pipelineP99,
            'intents ÷ pipeline': r.intentsPerPipelineRequest.toFixed(2),
            'cpu µs/intent': Math.round(r.cpuMicrosPerIntent),
            'pipeline cpu µs/req': Math.round(r.pipelineCpuMicrosPerRequest),
            'PostgreSQL cpu µs/intent': r.databaseCpuMicrosPerIntent === undefined ? '-' : Math.round(r.databaseCpuMicrosPerIntent),
          },
        ]),
      ),
    );
    console.log("embedded = SQLite + rate limits in process; shared = PostgreSQL + rate limits on Redis. cpu µs: the server process (all threads); PostgreSQL's: all its processes.");
    warnings(rows, rounds);
    for (const { intents } of pairs) await checkCharged(intents);

    const file = new URL('./results/payments.json', import.meta.url);
    mkdirSync(new URL('.', file), { recursive: true });
    const json = {
      timestamp: new Date().toISOString(),
      node: process.version,
      settings: { seconds: SECONDS, rounds: ROUNDS, warmupSeconds: WARMUP_SECONDS, connections: CONNECTIONS, keys: BENCH_KEYS, call: createIntent },
      modes: results,
      rows: rows.map((row) => ({ name: row.name, median: medians(row), rounds: rounds.get(row) })),
    };
    writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);
    console.log(`Results: ${relative(process.cwd(), fileURLToPath(file))}`);
  } finally {
    // The servers must be gone before their database is dropped under them.
    await Promise.all(servers.map((server) => server.stop()));
    await database.drop();
  }
}

/**
 * A 200 is not yet a charge: an intent left in `requires_confirmation` (confirm ignored) would answer 200 too
 * and cost less. Make sure a sample call's intent was charged, so the row measured what it says.
 */
async function checkCharged(row: Row): Promise<void> {
  const response = await fetch(row.options.url, {
    method: 'POST',
    headers: { ...row.options.headers[0], 'content-type': 'application/json' },
    body: row.options.bodies[0],
  });
  const intent = ((await response.json()) as { data?: { status?: string; amountReceived?: number } }).data;
  if (intent?.status !== 'succeeded' || intent.amountReceived !== createIntent.payload.amount) {
    console.log(`Warning: ${row.name}: a sample call answered ${response.status} with an intent ${intent?.status ?? 'missing'}, not succeeded with ${createIntent.payload.amount} received.`);
  }
}
