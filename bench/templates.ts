/**
 * The templates section: how long `/healthz` takes, on a fresh connection each time, on an idle server and
 * while a client (BENCH_SENDERS of them) keeps calling with costly templates, each call as soon as its last
 * answer came:
 * - hostile renders: `send` with three `each` inside one another over `@root`, 400 elements (a request of under
 *   two kilobytes that once kept the event loop for seconds), which its steps budget must refuse;
 * - large compiles: `updateTemplate` with a new template of nearly the tokens a call may compile (dense
 *   `{{name}}`), compiled and checked every time.
 * Each row also shows the calls' own latency and the server's CPU per call. Runs the real server (SQLite) in
 * its own process; writes bench/results/templates.json.
 * Target: `/healthz` within a few tens of milliseconds at p50 (a render's or a compile's budget), not seconds.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { cpuSeconds, startChild, type Started } from './http.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const SENDERS = Number(process.env.BENCH_SENDERS ?? 1);
const HOSTILE = '{{#each x}}{{#each @root.x}}{{#each @root.x}}{{@root.y}}{{/each}}{{/each}}{{/each}}';
const DATA = { x: Array.from({ length: 400 }, (_, i) => i), y: 'z' };
/** 2,800 of the 3,000 tokens a call may compile (each `Hello {{name}} ` is four). */
const LARGE = 'Hello {{name}} '.repeat(700);

export async function templates(): Promise<void> {
  const server = await startChild('./real-server.ts');
  try {
    const headers = { authorization: `Bearer ${server.keys![0]}`, 'x-entity-id': 'bench0', 'content-type': 'application/json' };
    const call = (action: string, payload: unknown) => fetch(`http://127.0.0.1:${server.port}/do`, { method: 'POST', headers, body: JSON.stringify({ face: 'email', action, payload }) });
    for (const [name, html] of [
      ['hostile', HOSTILE],
      ['large', LARGE],
    ]) {
      const created = await call('createTemplate', { name, subject: 'Hi', html });
      if (!created.ok) throw new Error(`createTemplate answered ${created.status}: ${await created.text()}`);
    }
    const send = { from: 'hello@acme.test', to: ['ada@example.com'], template: 'hostile', data: DATA };
    console.log(`\nTemplates: GET /healthz on a fresh connection each time, idle and while ${SENDERS} client(s) call with costly templates; ${SECONDS} s each`);

    const rows: Record<string, Row> = { idle: { healthz: summary(await healthzFor(server, SECONDS * 1000)) } };
    rows[`hostile renders (${JSON.stringify(send).length}-byte send)`] = await during(server, () => call('send', send));
    let version = 0;
    rows['large compiles (updateTemplate)'] = await during(server, () => call('updateTemplate', { name: 'large', html: `${LARGE}${++version}` }));

    console.table(Object.fromEntries(Object.entries(rows).flatMap(([name, row]) => [[`/healthz, ${name}`, row.healthz], ...(row.calls ? [[`the calls, ${name}`, row.calls]] : [])])));
    for (const [name, row] of Object.entries(rows)) {
      if (row.outcomes) console.log(`${name}: ${Object.entries(row.outcomes).map(([outcome, n]) => `${n} × ${outcome}`).join(', ')}; server CPU ${row.cpuMsPerCall!.toFixed(1)} ms per call`);
    }
    mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
    writeFileSync(new URL('./results/templates.json', import.meta.url), `${JSON.stringify({ senders: SENDERS, seconds: SECONDS, rows }, null, 2)}\n`);
  } finally {
    await server.stop();
  }
}

interface Row {
  healthz: Summary;
  calls?: Summary;
  outcomes?: Record<string, number>;
  cpuMsPerCall?: number;
}

/** `/healthz` measured while SENDERS clients make `call` again and again. */
async function during(server: Started, call: () => Promise<Response>): Promise<Row> {
  const outcomes: Record<string, number> = {};
  const times: number[] = [];
  let calling = true;
  const cpuBefore = cpuSeconds(server.child.pid!);
  const clients = Array.from({ length: SENDERS }, async () => {
    while (calling) {
      const started = performance.now();
      const reply = await call();
      const body = (await reply.json()) as { error?: { code?: string } };
      times.push(performance.now() - started);
      const outcome = `${reply.status}${body.error?.code ? ` ${body.error.code}` : ''}`;
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    }
  });
  const healthz = await healthzFor(server, SECONDS * 1000);
  calling = false;
  await Promise.all(clients);
  return { healthz: summary(healthz), calls: summary(times), outcomes, cpuMsPerCall: ((cpuSeconds(server.child.pid!) - cpuBefore) * 1000) / times.length };
}

/** `/healthz` asked again and again for `ms`, each time on a new connection: the milliseconds each took. */
async function healthzFor(server: Started, ms: number): Promise<number[]> {
  const times: number[] = [];
  const end = performance.now() + ms;
  while (performance.now() < end) times.push(await healthz(server.port));
  return times;
}

function healthz(port: number): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path: '/healthz', agent: false }, (response) => {
      response.resume();
      response.on('end', () => (response.statusCode === 200 ? resolve(performance.now() - started) : reject(new Error(`/healthz answered ${response.statusCode}`))));
    }).on('error', reject);
  });
}

interface Summary {
  requests: number;
  'p50 ms': number;
  'p99 ms': number;
  'max ms': number;
}

function summary(times: number[]): Summary {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! * 10) / 10;
  return { requests: sorted.length, 'p50 ms': at(0.5), 'p99 ms': at(0.99), 'max ms': at(1) };
}
