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
}

export function startChild(script: string, env: Record<string, string> = {}): Promise<Started> {
  const child = fork(new URL(script, import.meta.url), {
    execArgv: ['--import', 'tsx', ...(process.env.BENCH_NODE_ARGS?.split(' ') ?? [])],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (m: { port: number; keys?: string[] }) => resolve({ child, ...m }));
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
  const result = await autocannon({
    url: options.url,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    connections: 32,
    duration: options.seconds,
    requests: [
      {
        setupRequest: (request) => {
          turn++;
          return {
            ...request,
            body: options.bodies[turn % options.bodies.length],
            headers: {
              ...request.headers,
              ...options.headers[turn % options.headers.length],
              ...(options.idempotent ? { 'x-idempotency-key': prefix + turn } : {}),
            },
          };
        },
      },
    ],
  });
  return { requestsPerSecond: result.requests.average, p99: result.latency.p99, non2xx: result.non2xx };
}
