/**
 * Rows measured side by side: every row is warmed up, then the rows take turns round after round, so that
 * drift in a busy machine hits all of them alike; a row's figures are the medians of its rounds. Each round
 * also reads the server's CPU time, so a row says what a request costs the server, not only how many it got.
 */
import { cpuSeconds, cpuSecondsOfAll, load, type LoadOptions, type LoadResult, type Started } from './http.js';

export interface Row {
  name: string;
  server: Started;
  options: Omit<LoadOptions, 'seconds'>;
  /** The status every response should have; by default any 2xx. */
  expect?: number;
  /** Also counts the CPU of the processes of this name (the database's), per request. */
  database?: string;
}

export interface Round extends LoadResult {
  cpuMicrosPerRequest: number;
  databaseCpuMicrosPerRequest?: number;
}

export interface Medians {
  requestsPerSecond: number;
  p99: number;
  cpuMicrosPerRequest: number;
  databaseCpuMicrosPerRequest?: number;
}

export interface RoundSettings {
  rounds: number;
  seconds: number;
  warmupSeconds: number;
}

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Warms every row up (JIT, caches, connection pools), then runs `rounds` alternating rounds of them. */
export async function runRounds(rows: Row[], settings: RoundSettings): Promise<Map<Row, Round[]>> {
  for (const row of rows) await load({ ...row.options, seconds: settings.warmupSeconds });
  const rounds = new Map<Row, Round[]>(rows.map((row) => [row, []]));
  for (let round = 0; round < settings.rounds; round++) {
    for (const row of rows) {
      // /proc/<pid>/stat sums all the child's threads, so work moved off the main thread is counted too.
      const before = cpuSeconds(row.server.child.pid!);
      const databaseBefore = row.database ? cpuSecondsOfAll(row.database) : 0;
      const result = await load({ ...row.options, seconds: settings.seconds });
      const cpu = cpuSeconds(row.server.child.pid!) - before;
      const perRequest = (seconds: number) => (seconds * 1e6) / Math.max(result.requests, 1);
      const database = row.database ? { databaseCpuMicrosPerRequest: perRequest(cpuSecondsOfAll(row.database) - databaseBefore) } : {};
      rounds.get(row)!.push({ ...result, cpuMicrosPerRequest: perRequest(cpu), ...database });
    }
  }
  return rounds;
}

export function mediansOf(results: Round[]): Medians {
  return {
    requestsPerSecond: median(results.map((r) => r.requestsPerSecond)),
    p99: median(results.map((r) => r.p99)),
    cpuMicrosPerRequest: median(results.map((r) => r.cpuMicrosPerRequest)),
    ...(results[0]?.databaseCpuMicrosPerRequest !== undefined ? { databaseCpuMicrosPerRequest: median(results.map((r) => r.databaseCpuMicrosPerRequest!)) } : {}),
  };
}

/** Responses other than the row expects, and connection errors, mean the row measured something else. */
export function warnings(rows: Row[], rounds: Map<Row, Round[]>): void {
  for (const row of rows) {
    const results = rounds.get(row)!;
    const codes: Record<string, number> = {};
    for (const r of results) for (const [code, count] of Object.entries(r.statusCodes)) codes[code] = (codes[code] ?? 0) + count;
    const wanted = (code: number) => (row.expect ? code === row.expect : code >= 200 && code < 300);
    const unexpected = Object.entries(codes).filter(([code]) => !wanted(Number(code)));
    const errors = results.reduce((n, r) => n + r.errors, 0);
    if (unexpected.length > 0 || errors > 0) {
      const statuses = unexpected.map(([code, count]) => `${count} × ${code}`).join(', ');
      console.log(`Warning: ${row.name}: expected ${row.expect ?? '2xx'}, got ${[statuses, errors ? `${errors} connection errors` : ''].filter(Boolean).join(', ')}.`);
    }
  }
}
