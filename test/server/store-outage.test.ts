/**
 * A PostgreSQL store that drops every connection under load (as a restart or failover does): the server
 * never crashes, every answer is 200 or 503 `store_unavailable` with Retry-After (never 500), calls succeed
 * again once connections are back, and every call answered 200 kept its effect. Whether a call meets a cut
 * connection under load is a matter of timing, so a second test cuts one inside a transaction on purpose.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toApiError } from '../../src/core/errors.js';
import { shippedStatus } from '../helpers/errors.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ postgres: true });
});
afterAll(() => server?.close());

/** Terminates every other connection to the server's database, as a restart would. */
async function dropConnections(): Promise<number> {
  const result = await sql<{ n: number }>`select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`.execute(server.db);
  return result.rows[0]!.n;
}

describe('a store outage', () => {
  it('answers 503 store_unavailable, never 500 or a crash, and loses no answered effect', async () => {
    const answers: { status: number; code?: string; retryAfter: string | null; email: string }[] = [];
    let stop = false;
    let n = 0;
    const worker = async () => {
      while (!stop) {
        const email = `outage-${n++}@example.com`;
        const reply = await server.post({ face: 'auth', action: 'signup', payload: { email, password: 'correct horse battery' } });
        answers.push({ status: reply.status, code: reply.body?.error?.code, retryAfter: reply.headers.get('retry-after'), email });
      }
    };
    const workers = Array.from({ length: 6 }, worker);
    let dropped = 0;
    for (let i = 0; i < 4; i++) {
      await new Promise((r) => setTimeout(r, 250));
      dropped += await dropConnections();
    }
    await new Promise((r) => setTimeout(r, 250));
    stop = true;
    await Promise.all(workers);

    expect(dropped).toBeGreaterThan(0);
    const unexpected = answers.filter((a) => a.status !== 200 && !(a.status === 503 && a.code === 'store_unavailable' && a.retryAfter === '1'));
    expect(unexpected).toEqual([]);
    // Calls succeed again once the pool has new connections.
    const after = await server.post({ face: 'auth', action: 'signup', payload: { email: `after-${n}@example.com`, password: 'correct horse battery' } });
    expect(after.status).toBe(200);
    // Every signup answered 200 is stored.
    const stored = new Set((await server.db.selectFrom('auth_users').select('email').execute()).map((r) => r.email));
    expect(answers.filter((a) => a.status === 200 && !stored.has(a.email))).toEqual([]);
  });

  it('answers a call whose connection is lost in the middle of its transaction with 503 store_unavailable, and goes on', async () => {
    // Deterministic, where the load above depends on timing: a connection held by a transaction is cut.
    const trx = await server.db.startTransaction().execute();
    const pid = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)).rows[0]!.pid;
    await sql`select pg_terminate_backend(${pid})`.execute(server.db);
    const lost = await trx.selectFrom('api_keys').select('id').execute().catch((error: unknown) => error);
    await trx.rollback().execute().catch(() => {});
    const answer = toApiError(lost, 'req_test');
    expect(answer).toMatchObject({ code: 'store_unavailable', headers: { 'Retry-After': '1' } });
    expect(shippedStatus(answer)).toBe(503);
    expect((await server.post({ face: 'auth', action: 'signup', payload: { email: `after-cut@example.com`, password: 'correct horse battery' } })).status).toBe(200);
  });
});
