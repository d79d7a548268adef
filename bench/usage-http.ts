/**
 * What the usage stage costs a call, and how fast `usage.ingest` takes events, over HTTP: the pipeline row
 * (`ai.generate`) on a real server with the usage stage on and on a second one with it off
 * (`BENCH_USAGE=off`), and `usage.ingest` of 100 fresh events per call on the first, in embedded mode
 * (SQLite) and shared mode (PostgreSQL + Redis), all in the same alternating rounds (bench/rounds.ts).
 */
import { createTestDatabase } from '../test/helpers/postgres.js';
import { CONNECTIONS, doTarget, PIPELINE_CALL as generate, startChild, type Started } from './http.js';
import { BENCH_KEYS } from './keys.js';
import { mediansOf, runRounds, warnings, type Medians, type Row } from './rounds.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
// The stage's cost is a few per cent: more rounds than the http section, so that the medians can show it.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const WARMUP_SECONDS = 2;
export const EVENTS_PER_CALL = 100;
/** The stage may cost at most this share of the pipeline row's throughput. */
const TARGET_COST = 0.05;

/**
 * An ingest body cut where each event's id goes, so that a fresh body is one join (cheap for the load
 * generator). The mark is printable: JSON.stringify would escape a control character and the cut would miss.
 */
const ID_MARK = '@ID@';
const ingestParts = JSON.stringify({
  face: 'usage',
  action: 'ingest',
  payload: {
    events: Array.from({ length: EVENTS_PER_CALL }, (_, i) => ({ id: `${ID_MARK}-${i}`, type: i % 2 ? 'api_calls' : 'tokens', subject: `customer-${i % 10}`, value: i % 2 ? 1 : 250 })),
  },
}).split(ID_MARK);
const ingestBody = (unique: string) => ingestParts.join(unique);

export interface UsageHttpResult {
  settings: Record<string, unknown>;
  rows: { name: string; median: Medians; rounds: unknown[] }[];
  stageCost: { mode: string; on: Medians; off: Medians; throughputCost: number; cpuAddedMicros: number; met: boolean }[];
  ingest: { mode: string; callsPerSecond: number; eventsPerSecond: number; p99: number; cpuMicrosPerEvent: number; databaseCpuMicrosPerEvent: number | undefined }[];
}

export async function usageHttp(): Promise<UsageHttpResult> {
  const databases = [await createTestDatabase(), await createTestDatabase()];
  const servers: Started[] = [];
  try {
    const start = async (env: Record<string, string>) => (servers.push(await startChild('./real-server.ts', env)), servers.at(-1)!);
    const shared = (i: number) => ({ BENCH_MODE: 'shared', DATABASE_URL: databases[i]!.url });
    const modes = [
      { mode: 'embedded', on: await start({}), off: await start({ BENCH_USAGE: 'off' }) },
      // Each its own database, as the embedded servers each have their own file.
      { mode: 'shared', on: await start(shared(0)), off: await start({ ...shared(1), BENCH_USAGE: 'off' }) },
    ];
    // In shared mode PostgreSQL does much of the stage's work, on the same two cores: its CPU is counted too.
    const database = (mode: string) => (mode === 'shared' ? { database: 'postgres' } : {});
    const pipeline: Row[] = modes.flatMap(({ mode, on, off }) => [
      { name: `${mode}: ai.generate, usage on`, server: on, options: doTarget(on, [generate]), ...database(mode) },
      { name: `${mode}: ai.generate, usage off`, server: off, options: doTarget(off, [generate]), ...database(mode) },
    ]);
    const ingestRows: Row[] = modes.map(({ mode, on }) => ({
      name: `${mode}: usage.ingest, ${EVENTS_PER_CALL} events/call`,
      server: on,
      options: { ...doTarget(on, []), bodies: [ingestBody('first')], freshBody: ingestBody },
      ...database(mode),
    }));
    const rows: Row[] = [...pipeline, ...ingestRows];
    const rounds = await runRounds(rows, { rounds: ROUNDS, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS });
    const medians = (row: Row) => mediansOf(rounds.get(row)!);

    console.log(`\nUsage stage: POST /do ai.generate with the stage on and off, ${CONNECTIONS} connections, ${BENCH_KEYS} keys; median of ${ROUNDS} alternating rounds of ${SECONDS} s`);
    const stageCost = modes.map(({ mode }) => {
      const on = medians(pipeline.find((r) => r.name === `${mode}: ai.generate, usage on`)!);
      const off = medians(pipeline.find((r) => r.name === `${mode}: ai.generate, usage off`)!);
      const throughputCost = 1 - on.requestsPerSecond / off.requestsPerSecond;
      return { mode, on, off, throughputCost, cpuAddedMicros: on.cpuMicrosPerRequest - off.cpuMicrosPerRequest, met: throughputCost <= TARGET_COST };
    });
    console.table(
      Object.fromEntries(
        stageCost.map((c) => [
          c.mode,
          {
            'req/s on': Math.round(c.on.requestsPerSecond),
            'req/s off': Math.round(c.off.requestsPerSecond),
            'cost (req/s)': `${(c.throughputCost * 100).toFixed(1)}%`,
            'p99 ms on/off': `${c.on.p99} / ${c.off.p99}`,
            'cpu µs/req on/off': `${Math.round(c.on.cpuMicrosPerRequest)} / ${Math.round(c.off.cpuMicrosPerRequest)}`,
            'cost (cpu)': `${((c.cpuAddedMicros / c.off.cpuMicrosPerRequest) * 100).toFixed(1)}%`,
            'PostgreSQL cpu µs/req on/off': c.on.databaseCpuMicrosPerRequest === undefined ? '-' : `${Math.round(c.on.databaseCpuMicrosPerRequest)} / ${Math.round(c.off.databaseCpuMicrosPerRequest!)}`,
          },
        ]),
      ),
    );
    console.log(`Target: the stage costs ≤ ${TARGET_COST * 100}% of the row's req/s. cpu µs/req: the server process (all threads); PostgreSQL's: all its processes.`);

    const ingest = ingestRows.map((row, i) => {
      const m = medians(row);
      const databaseCpuMicrosPerEvent = m.databaseCpuMicrosPerRequest === undefined ? undefined : m.databaseCpuMicrosPerRequest / EVENTS_PER_CALL;
      return { mode: modes[i]!.mode, callsPerSecond: m.requestsPerSecond, eventsPerSecond: m.requestsPerSecond * EVENTS_PER_CALL, p99: m.p99, cpuMicrosPerEvent: m.cpuMicrosPerRequest / EVENTS_PER_CALL, databaseCpuMicrosPerEvent };
    });
    console.log(`\nusage.ingest: ${EVENTS_PER_CALL} events per call, each id new (on the usage-on servers, in the same rounds)`);
    console.table(
      Object.fromEntries(
        ingest.map((r) => [
          r.mode,
          {
            'calls/s': Math.round(r.callsPerSecond),
            'events/s': Math.round(r.eventsPerSecond),
            'p99 ms': r.p99,
            'cpu µs/event': r.cpuMicrosPerEvent.toFixed(1),
            'PostgreSQL cpu µs/event': r.databaseCpuMicrosPerEvent?.toFixed(1) ?? '-',
          },
        ]),
      ),
    );
    warnings(rows, rounds);
    for (const row of ingestRows) await checkIngest(row);

    return {
      settings: { seconds: SECONDS, rounds: ROUNDS, warmupSeconds: WARMUP_SECONDS, connections: CONNECTIONS, keys: BENCH_KEYS, eventsPerCall: EVENTS_PER_CALL },
      rows: rows.map((row) => ({ name: row.name, median: medians(row), rounds: rounds.get(row)! })),
      stageCost,
      ingest,
    };
  } finally {
    // The servers must be gone before their databases are dropped under them.
    await Promise.all(servers.map((server) => server.stop()));
    await Promise.all(databases.map((database) => database.drop()));
  }
}

/** An ingest call answers 200 even when its events are refused: make sure a sample call's all counted. */
async function checkIngest(row: Row): Promise<void> {
  const response = await fetch(row.options.url, {
    method: 'POST',
    headers: { ...row.options.headers[0], 'content-type': 'application/json' },
    body: ingestBody(`check-${process.pid}-${Date.now()}`),
  });
  const accepted = ((await response.json()) as { data?: { accepted?: number } }).data?.accepted;
  if (accepted !== EVENTS_PER_CALL) console.log(`Warning: ${row.name}: a sample call had ${accepted ?? 'no'} of ${EVENTS_PER_CALL} events accepted (status ${response.status}).`);
}
