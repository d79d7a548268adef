/**
 * The scale section: a server over the large catalogue (test/fixtures/large: 42 faces, 276 actions), as
 * generated, its tables compiled to JavaScript, every handler answering its action's example.
 * - first 200: from spawning a server process to the first 200 of `POST /do`, polled every few ms, the
 *   median of several starts taken in turns: the node:http floor and bare Fastify (what any server on this
 *   machine pays before it does anything of its own), the catalogue of the called action's face alone, and
 *   the large catalogue;
 * - throughput: `search.list` on both servers, side by side in alternating rounds (req/s, p99, server CPU per
 *   request), and the ratio of the large catalogue's to the one-face catalogue's.
 * Targets: first 200 within 250 ms of process start (on a machine where bare Fastify's takes about 150 ms; the
 * row also gives it as bare Fastify's plus the server's own); throughput within 5% of the small catalogue's.
 */
import { fork } from 'node:child_process';
import { createServer, request } from 'node:http';
import { fromRoot } from '../src/package-root.js';
import { doTarget, startChild, type Started } from './http.js';
import { mediansOf, runRounds, warnings, type Row } from './rounds.js';
import { prepare, serverEnv, type Prepared } from './scratch-catalogue.js';

const FACE = 'search';
const CALL = { face: FACE, action: 'list', payload: { limit: 10 } };
const STARTS = 9;
/** The catalogue's server, compiled under dist/bench. */
const SERVER = 'catalogue-server.js';

export async function scale(): Promise<void> {
  console.log(`\nScale (the large catalogue against ${FACE}.yaml alone; each server its own process)`);
  const small = await prepare([`${FACE}.yaml`]);
  const large = await prepare();
  const starts = [
    { label: 'node:http floor', script: 'floor-server.js' },
    { label: 'bare Fastify', script: 'fastify-server.js' },
    { label: `one face (${small.actions} actions)`, script: SERVER, prepared: small },
    { label: `42 faces (${large.actions} actions)`, script: SERVER, prepared: large },
  ].map((server) => ({ ...server, times: [] as number[] }));
  // In turns, so that a slow spell of the machine falls on every server alike.
  for (let i = 0; i < STARTS; i++) for (const server of starts) server.times.push(await firstOk(server.script, server.prepared));
  const medians = starts.map(({ label, times }) => {
    times.sort((a, b) => a - b);
    const median = times[STARTS >> 1]!;
    console.log(`first 200, ${label}: median ${Math.round(median)} ms, best ${Math.round(times[0]!)} ms, worst ${Math.round(times.at(-1)!)} ms`);
    return median;
  });
  const [, fastify, one, all] = medians as [number, number, number, number];
  console.log(`first 200, 42 faces: bare Fastify's + ${Math.round(all - fastify)} ms (one face: + ${Math.round(one - fastify)} ms); 42 faces ÷ one face ${(all / one).toFixed(2)}`);
  const servers = [await start(small), await start(large)];
  try {
    const rows: Row[] = servers.map((server, i) => ({ name: i === 0 ? 'one face' : '42 faces', server, options: doTarget(server, [CALL]) }));
    const rounds = await runRounds(rows, { rounds: 5, seconds: 5, warmupSeconds: 3 });
    warnings(rows, rounds);
    const [base, big] = rows.map((row) => mediansOf(rounds.get(row)!));
    for (const [row, m] of [[rows[0]!, base!], [rows[1]!, big!]] as const) {
      console.log(`${row.name.padEnd(9)} ${Math.round(m.requestsPerSecond)} req/s, p99 ${m.p99} ms, ${Math.round(m.cpuMicrosPerRequest)} µs CPU/request`);
    }
    console.log(`throughput, 42 faces ÷ one face: ${(big!.requestsPerSecond / base!.requestsPerSecond).toFixed(3)} (target ≥ 0.95)`);
  } finally {
    for (const server of servers) await server.stop();
  }
}

/**
 * Milliseconds from spawning `script` (compiled, under dist/bench) to its first 200 for the call: over
 * `prepared`'s catalogue, or a baseline server that answers any POST /do.
 */
async function firstOk(script: string, prepared?: Prepared): Promise<number> {
  const port = await freePort();
  const body = JSON.stringify(CALL);
  const env = prepared ? serverEnv(prepared, port) : { ...process.env, BENCH_PORT: String(port) };
  const started = performance.now();
  // Without the bench's own loader flags: the server runs as `npm start` runs it.
  const child = fork(fromRoot('dist', 'bench', script), { env, execArgv: [], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}`);
      const status = await post(port, body, prepared?.keys[0] ?? 'none').catch(() => 0);
      if (status === 200) return performance.now() - started;
      if (status !== 0) throw new Error(`The first call answered ${status}.`);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  } finally {
    child.kill();
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

function post(port: number, body: string, key: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ port, host: '127.0.0.1', method: 'POST', path: '/do', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'x-entity-id': 'bench0' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function start(prepared: Prepared): Promise<Started> {
  return { ...(await startChild(SERVER, serverEnv(prepared, await freePort()))), keys: prepared.keys };
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
