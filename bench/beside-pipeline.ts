/**
 * One call of a face measured beside the pipeline row (`ai.generate` on the test model) on the same servers,
 * in the same alternating rounds (bench/rounds.ts), in embedded mode (SQLite) and shared mode (PostgreSQL +
 * Redis): per mode its calls/s, p99, CPU per call (the server's, and PostgreSQL's in shared mode) and the ratio
 * calls/s ÷ pipeline req/s, the steadier figure on a busy machine since both rows meet the same drift. Each
 * section using it (payments, email, …) names its call and checks a sample answer, so that a 200 that did
 * less than the row says cannot pass for it. Results go to bench/results/<section>.json.
 */
import { createTestDatabase } from '../test/helpers/postgres.js';
import { CONNECTIONS, doTarget, PIPELINE_CALL, startChild, type Started } from './http.js';
import { BENCH_KEYS } from './keys.js';
import { writeResults } from './results-file.js';
import { mediansOf, runRounds, warnings, type Row } from './rounds.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARMUP_SECONDS = 2;

export interface BesidePipeline {
  /** The section's name: its results file. */
  section: string;
  /** What one call is, for the table's heading. */
  title: string;
  /** The unit of the call's rate (`intents`, `messages`). */
  unit: string;
  call: { face: string; action: string; payload: unknown };
  /** Says what is wrong with a sample answer, or nothing when it did what the row measures. */
  check: (status: number, body: { data?: unknown }) => string | undefined;
}

export async function besidePipeline(bench: BesidePipeline): Promise<void> {
  const database = await createTestDatabase();
  const servers: Started[] = [];
  try {
    const start = async (env: Record<string, string>) => (servers.push(await startChild('./real-server.ts', env)), servers.at(-1)!);
    const modes = [
      { mode: 'embedded', server: await start({}) },
      { mode: 'shared', server: await start({ BENCH_MODE: 'shared', DATABASE_URL: database.url }) },
    ];
    // In shared mode PostgreSQL does much of a call's work on the same two cores: its CPU is counted too.
    const pairs = modes.map(({ mode, server }) => {
      const database = mode === 'shared' ? { database: 'postgres' } : {};
      const pipeline: Row = { name: `${mode}: ai.generate`, server, options: doTarget(server, [PIPELINE_CALL]), ...database };
      const measured: Row = { name: `${mode}: ${bench.call.face}.${bench.call.action}`, server, options: doTarget(server, [bench.call]), ...database };
      return { mode, pipeline, measured };
    });
    const rows = pairs.flatMap(({ pipeline, measured }) => [pipeline, measured]);
    const rounds = await runRounds(rows, { rounds: ROUNDS, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS });
    const medians = (row: Row) => mediansOf(rounds.get(row)!);
    const results = pairs.map(({ mode, pipeline, measured }) => {
      const p = medians(pipeline);
      const m = medians(measured);
      return {
        mode,
        perSecond: m.requestsPerSecond,
        p99: m.p99,
        pipelineRequestsPerSecond: p.requestsPerSecond,
        pipelineP99: p.p99,
        ratioToPipeline: m.requestsPerSecond / p.requestsPerSecond,
        cpuMicrosPerCall: m.cpuMicrosPerRequest,
        pipelineCpuMicrosPerRequest: p.cpuMicrosPerRequest,
        databaseCpuMicrosPerCall: m.databaseCpuMicrosPerRequest,
      };
    });
    const unit = bench.unit;
    console.log(`\n${bench.title} beside ai.generate, ${CONNECTIONS} connections, ${BENCH_KEYS} keys; median of ${ROUNDS} alternating rounds of ${SECONDS} s`);
    console.table(
      Object.fromEntries(
        results.map((r) => [
          r.mode,
          {
            [`${unit}/s`]: Math.round(r.perSecond),
            'p99 ms': r.p99,
            'pipeline req/s': Math.round(r.pipelineRequestsPerSecond),
            'pipeline p99 ms': r.pipelineP99,
            [`${unit} ÷ pipeline`]: r.ratioToPipeline.toFixed(2),
            [`cpu µs/${unit.replace(/s$/, '')}`]: Math.round(r.cpuMicrosPerCall),
            'pipeline cpu µs/req': Math.round(r.pipelineCpuMicrosPerRequest),
            'PostgreSQL cpu µs/call': r.databaseCpuMicrosPerCall === undefined ? '-' : Math.round(r.databaseCpuMicrosPerCall),
          },
        ]),
      ),
    );
    console.log("embedded = SQLite + rate limits in process; shared = PostgreSQL + rate limits on Redis. cpu µs: the server process (all threads); PostgreSQL's: all its processes.");
    warnings(rows, rounds);
    for (const { measured } of pairs) await checkSample(measured, bench);

    writeResults(bench.section, {
      settings: { seconds: SECONDS, rounds: ROUNDS, warmupSeconds: WARMUP_SECONDS, connections: CONNECTIONS, keys: BENCH_KEYS, call: bench.call },
      modes: results,
      rows: rows.map((row) => ({ name: row.name, median: medians(row), rounds: rounds.get(row) })),
    });
  } finally {
    // The servers must be gone before their database is dropped under them.
    await Promise.all(servers.map((server) => server.stop()));
    await database.drop();
  }
}

/** One more call after the rounds, its answer checked by the section. */
async function checkSample(row: Row, bench: BesidePipeline): Promise<void> {
  const response = await fetch(row.options.url, { method: 'POST', headers: { ...row.options.headers[0], 'content-type': 'application/json' }, body: row.options.bodies[0] });
  const problem = bench.check(response.status, (await response.json()) as { data?: unknown });
  if (problem) console.log(`Warning: ${row.name}: ${problem}`);
}
