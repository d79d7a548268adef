/**
 * A PostgreSQL restart under load, on a server of the test's own restarted ten times (fast and immediate)
 * while `dispatch serve` takes signups: the process never exits, every answer is 200 or 503
 * `store_unavailable` with Retry-After, calls succeed again soon after each restart, and every signup answered
 * 200 is in the store.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newSecretKey } from '../../src/store/sealed.js';
import { startPrivatePostgres, type PrivatePostgres } from '../helpers/private-postgres.js';
import { printedKey, serve, type ServeProcess } from '../helpers/process.js';

let database: PrivatePostgres;
let server: ServeProcess;
beforeAll(async () => {
  database = await startPrivatePostgres();
  server = await serve({ DATABASE_URL: database.url, DISPATCH_SECRET_KEY: newSecretKey(), DATA_DIR: '/nonexistent' });
}, 60_000);
afterAll(async () => {
  if (server.child.exitCode === null) await server.stop();
  database?.stop();
});

describe('PostgreSQL restarts under load', () => {
  it('never end the process, answer 503 store_unavailable meanwhile, and lose no answered signup', async () => {
    const key = printedKey(server.output());
    const answers: { status: number; code?: string; retryAfter: string | null; email: string; at: number }[] = [];
    let stop = false;
    let n = 0;
    const client = async () => {
      while (!stop) {
        const email = `u${n++}@example.com`;
        try {
          const response = await fetch(`${server.url}/do`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'x-entity-id': 'acme', 'content-type': 'application/json' },
            body: JSON.stringify({ face: 'auth', action: 'signup', payload: { email, password: 'correct horse battery' } }),
          });
          const body = (await response.json()) as { error?: { code: string } };
          answers.push({ status: response.status, code: body.error?.code, retryAfter: response.headers.get('retry-after'), email, at: Date.now() });
        } catch {
          answers.push({ status: 0, email, retryAfter: null, at: Date.now() });
        }
      }
    };
    const clients = Array.from({ length: 6 }, client);
    const restarts: number[] = [];
    for (let i = 0; i < 10; i++) {
      await new Promise((r) => setTimeout(r, 300));
      database.restart(i % 2 ? 'immediate' : 'fast');
      // From when PostgreSQL is back (pg_ctl -w returns then): how long the restart itself takes depends on the machine, not on the server.
      restarts.push(Date.now());
    }
    // The clients go on until the server answers again after the last restart: how soon depends on the machine
    // (its restarts and the server's reconnection back-off), so it is reported, not held to a bound.
    const last = restarts.at(-1)!;
    for (const until = Date.now() + 30_000; !answers.some((a) => a.status === 200 && a.at > last) && Date.now() < until; ) await new Promise((r) => setTimeout(r, 100));
    stop = true;
    await Promise.all(clients);

    expect(server.child.exitCode).toBeNull();
    const byCode = new Map<string, number>();
    for (const a of answers) if (a.status !== 200) byCode.set(`${a.status} ${a.code ?? 'no answer'}`, (byCode.get(`${a.status} ${a.code ?? 'no answer'}`) ?? 0) + 1);
    // Time from each restart's end to the next 200.
    const resumed = restarts.map((at) => (answers.find((a) => a.status === 200 && a.at > at)?.at ?? Infinity) - at);
    console.log(`10 restarts: ${answers.length} answers, ${answers.filter((a) => a.status === 200).length} of them 200; other answers: ${JSON.stringify(Object.fromEntries(byCode))}; ms until a 200 after each restart: ${resumed.join(', ')}`);
    expect(answers.filter((a) => a.status !== 200 && !(a.status === 503 && a.code === 'store_unavailable' && a.retryAfter === '1'))).toEqual([]);
    // After every restart the server answered 200 again, without being restarted itself.
    expect(resumed.filter((ms) => !Number.isFinite(ms))).toEqual([]);
    const check = new pg.Client({ connectionString: database.url });
    await check.connect();
    const stored = new Set((await check.query<{ email: string }>('select email from auth_users')).rows.map((r) => r.email));
    await check.end();
    const lost = answers.filter((a) => a.status === 200 && !stored.has(a.email));
    expect(lost).toEqual([]);
  }, 60_000);
});
