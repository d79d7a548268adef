/**
 * Idempotency claims made together when the store cannot be reached: every claim fails at once with the
 * store's error (which the server answers 503), after one attempt for the statement, not one more per row.
 */
import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertRunning } from '../../src/store/claim-batch.js';
import type { Database } from '../../src/store/schema.js';
import { isStoreUnavailable } from '../../src/store/unavailable.js';

let connections = 0;
const sockets = new Set<Socket>();
// Takes each connection and drops it at once, as a PostgreSQL going down would.
const dropper = createServer((socket) => {
  connections++;
  sockets.add(socket);
  socket.destroy();
});
let db: Kysely<Database>;

beforeAll(async () => {
  await new Promise<void>((resolve) => dropper.listen(0, '127.0.0.1', resolve));
  const { port } = dropper.address() as AddressInfo;
  db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: `postgres://x@127.0.0.1:${port}/x`, max: 4 }) }) });
});
afterAll(async () => {
  await db.destroy();
  await new Promise((resolve) => dropper.close(resolve));
});

describe('claims while the store is unreachable', () => {
  it('fail together with the store error, after one attempt', async () => {
    const at = new Date().toISOString();
    const claims = Array.from({ length: 20 }, (_, i) => insertRunning(db, { scope: 'outage', key: `k${i}`, fingerprint: 'f', created_at: at, expires_at: at, leased_until: at }));
    const outcomes = await Promise.allSettled(claims);
    expect(outcomes.every((o) => o.status === 'rejected' && isStoreUnavailable(o.reason))).toBe(true);
    expect(connections).toBe(1);
  });
});
