/**
 * Load helpers: start a server script in a child process, drive it with autocannon, and read the child's
 * CPU time so that a row can say what a request costs the server, not only how many it answered.
 */
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import autocannon from 'autocannon';

export const CONNECTIONS = 32;

export interface Started {
  child: ChildProcess;
  port: number;
  /** API keys issued by the real server, each for entity `bench<i>`. */
  keys?: string[];
  /** The ids of `keys`, in the same order. */
  keyIds?: string[];
  /** More keys, each for entity `batch<i>`. */
  batchKeys?: string[];
  /** Kills the child and waits until it is gone. */
  stop(): Promise<void>;
}

/**
 * The one place that knows how a bench server is run: the compiled JavaScript under dist/ (which
 * `npm run bench` builds first), as `npm start` runs it. `script` names the TypeScript source in bench/.
 * BENCH_NODE_ARGS adds node flags (e.g. --cpu-prof).
 */
export function startChild(script: string, env: Record<string, string> = {}): Promise<Started> {
  const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const compiled = new URL(`../dist/bench/${script.replace(/^\.\//, '').replace(/\.ts$/, '.js')}`, import.meta.url);
  const child = fork(compiled, {
    execArgv: nodeArgs,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill();
    await exited;
  };
  return new Promise((resolve, reject) => {
    child.once('message', (m: Omit<Started, 'child' | 'stop'>) => resolve({ ...m, child, stop }));
    // Node exits with 13, silently, when a top-level await can never settle (e.g. waiting on an unref'd handle).
    const why = (code: number | null) => (code === 13 ? ' (a top-level await never settled)' : '');
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}${why(code)} before it listened`)));
  });
}

let ticksPerSecond: number | undefined;

/**
 * CPU seconds (user + system, all threads) a process has used so far, from /proc/<pid>/stat; NaN where
 * there is no /proc.
 */
export const cpuSeconds = (pid: number): number => cpuSecondsOf(`/proc/${pid}/stat`);

/** CPU seconds a process's main thread (the one whose id is the process's) has used so far; NaN without /proc. */
export const mainThreadCpuSeconds = (pid: number): number => cpuSecondsOf(`/proc/${pid}/task/${pid}/stat`);

/**
 * User + system CPU seconds from a /proc stat file. Fields 14 and 15 count clock ticks; they follow the
 * command name, which may itself hold spaces and parentheses, so counting starts after its closing
 * parenthesis (at field 3).
 */
function cpuSecondsOf(path: string): number {
  try {
    ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    ticksPerSecond = 100;
  }
  try {
    const stat = readFileSync(path, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[14 - 3]) + Number(fields[15 - 3])) / ticksPerSecond;
  } catch {
    return NaN;
  }
}

/**
 * CPU seconds used so far by every process named `name` (e.g. `postgres`: the server and its backends), for
 * the work a row causes outside the server process. A process that ends meanwhile takes its share with it.
 */
export function cpuSecondsOfAll(name: string): number {
  let total = 0;
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === name) total += cpuSeconds(Number(pid));
    } catch {
      // Gone since the listing.
    }
  }
  return total;
}

export interface LoadResult {
  requestsPerSecond: number;
  p99: number;
  /** Responses received. */
  requests: number;
  non2xx: number;
  /** Responses by status code. */
  statusCodes: Record<string, number>;
  /** Connection errors and timeouts. */
  errors: number;
}

export interface LoadOptions {
  url: string;
  /** Bodies used in turn, paired with `headers` (body i goes with header set i). */
  bodies: string[];
  /** Header sets used in turn (e.g. one per API key). */
  headers: Record<string, string>[];
  seconds: number;
  /** Sends a new idempotency key with every request, so that each one is claimed and stored. */
  idempotent?: boolean;
  /** Makes each request's body from a text unique to it (ids that must never repeat), instead of `bodies`. */
  freshBody?: (unique: string) => string;
  /**
   * Builds every request anew, as a fresh idempotency key or body needs, though it sends the same ones as
   * without: the reference for such a row. Building a request costs the load generator about twice what
   * sending a prebuilt one does, on the cores the server runs on, and spreads the requests' arrival.
   */
  rebuilt?: boolean;
}

/**
 * The pipeline row's call: `ai.generate` on the test model, so that the handler costs next to nothing and
 * the row measures the pipeline. Every section that compares a call with the pipeline sends this one.
 */
export const PIPELINE_CALL = { face: 'ai', action: 'generate', payload: { model: 'bench', prompt: 'Classify this.', input: 'I love it.' } };

/** POST /do on a real server, spread over its keys (each for entity `bench<i>`), the bodies taken in turn. */
export function doTarget(server: Started, bodies: unknown[]): Omit<LoadOptions, 'seconds'> {
  return {
    url: `http://127.0.0.1:${server.port}/do`,
    bodies: bodies.map((b) => JSON.stringify(b)),
    headers: server.keys!.map((key, i) => ({ authorization: `Bearer ${key}`, 'x-entity-id': `bench${i}` })),
  };
}

let run = 0;

/**
 * Drives `options.url` with CONNECTIONS connections for `options.seconds`. Each connection is an autocannon
 * instance of its own that starts its turn through the header sets (the keys) at its own place, so that the
 * calls in flight at once are spread over the keys, as independent clients' are. One instance of CONNECTIONS
 * connections would send every connection's request for the same key at the same time, round after round:
 * calls of one entity then arrive together, and a server that writes them together finds them on the same
 * store pages, which many clients' traffic never does. p99 is read off every response's latency.
 */
export async function load(options: LoadOptions): Promise<LoadResult> {
  const prefix = `bench-${process.pid}-${++run}-`;
  const fixed = options.headers.map((headers, i) => ({
    method: 'POST' as const,
    body: options.bodies[i % options.bodies.length],
    headers: { 'content-type': 'application/json', ...headers },
  }));
  const latencies: number[] = [];
  const results = await Promise.all(
    Array.from({ length: CONNECTIONS }, (_, connection) => {
      const start = Math.floor((connection * fixed.length) / CONNECTIONS);
      let turn = start;
      const settings: autocannon.Options = {
        url: options.url,
        connections: 1,
        duration: options.seconds,
        // Precomputed requests cost the load generator least; a fresh idempotency key or body per call needs a function.
        requests:
          options.idempotent || options.freshBody || options.rebuilt
            ? [
                {
                  method: 'POST',
                  setupRequest: (request) => {
                    const next = fixed[++turn % fixed.length]!;
                    const unique = `${prefix}${connection}-${turn}`;
                    const headers = options.idempotent ? { ...next.headers, 'x-idempotency-key': unique } : next.headers;
                    return { ...request, ...next, headers, ...(options.freshBody ? { body: options.freshBody(unique) } : {}) };
                  },
                },
              ]
            : [...fixed.slice(start), ...fixed.slice(0, start)],
      };
      return new Promise<autocannon.Result>((resolve, reject) => {
        const instance = autocannon(settings, (error, result) => (error ? reject(error) : resolve(result)));
        instance.on('response', (_client, _status, _bytes, milliseconds) => latencies.push(milliseconds));
      });
    }),
  );
  const statusCodes: Record<string, number> = {};
  for (const result of results) {
    for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = (statusCodes[code] ?? 0) + (stats.count ?? 0);
  }
  const requests = results.reduce((n, r) => n + r.requests.total, 0);
  latencies.sort((a, b) => a - b);
  return {
    requestsPerSecond: requests / options.seconds,
    // The nearest rank: the smallest latency that 99% of the responses did not exceed.
    p99: Math.round((latencies[Math.ceil(latencies.length * 0.99) - 1] ?? 0) * 10) / 10,
    requests,
    non2xx: results.reduce((n, r) => n + r.non2xx, 0),
    statusCodes,
    errors: results.reduce((n, r) => n + r.errors, 0),
  };
}
