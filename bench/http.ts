/**
 * Load helpers: start a server script in a child process and drive it with autocannon.
 */
import { fork, type ChildProcess } from 'node:child_process';
import autocannon from 'autocannon';

export interface Started {
  child: ChildProcess;
  port: number;
  key?: string;
}

export function startChild(script: string): Promise<Started> {
  const child = fork(new URL(script, import.meta.url), { execArgv: ['--import', 'tsx', ...(process.env.BENCH_NODE_ARGS?.split(' ') ?? [])], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', (m: { port: number; key?: string }) => resolve({ child, ...m }));
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

export interface LoadResult {
  requestsPerSecond: number;
  p99: number;
  non2xx: number;
}

export async function load(options: { url: string; body: string; headers: Record<string, string>; seconds: number }): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    method: 'POST',
    body: options.body,
    headers: { 'content-type': 'application/json', ...options.headers },
    connections: 32,
    duration: options.seconds,
  });
  return { requestsPerSecond: result.requests.average, p99: result.latency.p99, non2xx: result.non2xx };
}
