/**
 * Load helpers: start a server script in a child process and drive it with autocannon.
 */
import { fork, type ChildProcess } from 'node:child_process';
import autocannon from 'autocannon';

export interface Started {
  child: ChildProcess;
  port: number;
  /** API keys issued by the real server, each for entity `bench<i>`. */
  keys?: string[];
  /** More keys, each for entity `batch<i>`. */
  batchKeys?: string[];
}

export function startChild(script: string, env: Record<string, string> = {}): Promise<Started> {
  const child = fork(new URL(script, import.meta.url), {
    execArgv: ['--import', 'tsx', ...(process.env.BENCH_NODE_ARGS?.split(' ') ?? [])],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (m: { port: number; keys?: string[]; batchKeys?: string[] }) => resolve({ child, ...m }));
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

export interface LoadResult {
  requestsPerSecond: number;
  p99: number;
  non2xx: number;
}

export interface LoadOptions {
  url: string;
  /** Bodies used in turn, request after request. */
  bodies: string[];
  /** Header sets used in turn (e.g. one per API key). */
  headers: Record<string, string>[];
  seconds: number;
  /** Sends a new idempotency key with every request, so that each one is claimed and stored. */
  idempotent?: boolean;
}

let run = 0;

export async function load(options: LoadOptions): Promise<LoadResult> {
  let turn = 0;
  const prefix = `bench-${process.pid}-${++run}-`;
  const fixed = options.headers.map((headers, i) => ({
    method: 'POST' as const,
    body: options.bodies[i % options.bodies.length],
    headers: { 'content-type': 'application/json', ...headers },
  }));
  const result = await autocannon({
    url: options.url,
    connections: 32,
    duration: options.seconds,
    // Precomputed requests cost the load generator least; a fresh idempotency key per call needs a function.
    requests: options.idempotent
      ? [
          {
            method: 'POST',
            setupRequest: (request) => {
              turn++;
              return { ...request, ...fixed[turn % fixed.length]!, headers: { ...fixed[turn % fixed.length]!.headers, 'x-idempotency-key': prefix + turn } };
            },
          },
        ]
      : fixed,
  });
  return { requestsPerSecond: result.requests.average, p99: result.latency.p99, non2xx: result.non2xx };
}
