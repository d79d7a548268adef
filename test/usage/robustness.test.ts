/**
 * What usage recording does at its edges: a record the store refuses for its content costs only itself (the
 * rest of the flush is written); junk names are recorded as `(unknown)`; an atomic batch counts its
 * requests only once their effects commit (rolled-back ones with the batch's refusal, at no cost), and a
 * batch refused as a whole is counted as one call; a stopping server ends its live streams at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { openShippedStore } from '../../src/server/shipped.js';
import { commitGroupOf } from '../../src/store/commit-group.js';
import { UsageRecorder } from '../../src/faces/usage/recorder.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { usageRecord } from '../helpers/usage-record.js';
import { generateCall, startServer, type TestServer } from '../helpers/server.js';
import { postStream } from '../helpers/sse.js';

const row = (face: string) => usageRecord({ face });

describe('the recorder on PostgreSQL', () => {
  it('drops only the record the store refuses, and writes the rest of its flush', async () => {
    const database = await createTestDatabase();
    const db = await openShippedStore({ dataDir: '/nonexistent', databaseUrl: database.url });
    try {
      const recorder = new UsageRecorder(db, { flushMs: 60_000 });
      recorder.record(row('ai'), 500_000n);
      // PostgreSQL refuses a NUL character in text.
      recorder.record(row('a\u0000i'), 0n);
      recorder.record(row('auth'), 0n);
      await recorder.close();
      const faces = (await db.selectFrom('usage_records').select('face').execute()).map((r) => r.face).sort();
      expect(faces).toEqual(['ai', 'auth']);
      expect(recorder.dropped).toBe(1);
      const rollups = await db.selectFrom('usage_rollups').select(['face', 'calls']).orderBy('face').execute();
      expect(rollups.map((r) => [r.face, Number(r.calls)])).toEqual([
        ['ai', 1],
        ['auth', 1],
      ]);
    } finally {
      await db.destroy();
      await database.drop();
    }
  });

  it('writes a flush in a transaction of its own, which no call\'s commit waits for', async () => {
    const database = await createTestDatabase();
    const db = await openShippedStore({ dataDir: '/nonexistent', databaseUrl: database.url });
    const blocker = new pg.Client({ connectionString: database.url });
    await blocker.connect();
    try {
      // Another transaction holds the usage records, so the flush waits until it ends.
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE usage_records IN SHARE MODE');
      const recorder = new UsageRecorder(db, { flushMs: 60_000 });
      recorder.record(row('ai'), 0n);
      const flushing = recorder.flush();
      // A call finishing in the same turn commits while the flush still waits.
      await commitGroupOf(db).commit({});
      expect(await db.selectFrom('usage_records').select('face').execute()).toEqual([]);
      await blocker.query('COMMIT');
      await flushing;
      expect(await db.selectFrom('usage_records').select('face').execute()).toEqual([{ face: 'ai' }]);
    } finally {
      await blocker.end();
      await db.destroy();
      await database.drop();
    }
  });
});

describe.each([
  { name: 'SQLite', postgres: false },
  { name: 'PostgreSQL', postgres: true },
])('usage at its edges on $name', ({ postgres }) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ postgres, usageFlushMs: 20 });
  });
  afterAll(() => server?.close());

  const recordsOf = async (requestId: string) =>
    (await server.db.selectFrom('usage_records').selectAll().where('request_id', '=', requestId).execute()).map((r) => [r.face, r.action, r.status, r.error_code, r.cost]);

  it('records junk names as (unknown) and keeps recording', async () => {
    const junk = await server.post({ face: 'x\u0000y', action: 'a\u0000', payload: {} });
    const typo = await server.post({ face: 'ai', action: 'generat', payload: {} });
    expect([junk.status, typo.status]).toEqual([404, 404]);
    await expect.poll(() => recordsOf(typo.body.meta.requestId), { timeout: 2000 }).toEqual([['ai', '(unknown)', 404, 'action_not_found', '0']]);
    expect(await recordsOf(junk.body.meta.requestId)).toEqual([['(unknown)', '(unknown)', 404, 'face_not_found', '0']]);
    const ingest = await server.post({ face: 'usage', action: 'ingest', payload: { events: [{ id: 'a\u0000b', type: 'seats', value: 1 }] } });
    expect([ingest.status, ingest.body.error.code, ingest.body.error.param]).toEqual([400, 'payload_invalid', '/payload/events/0/id']);
  });

  it('counts an atomic batch\'s requests once they commit, and a rolled-back one at no cost', async () => {
    const create = { face: 'keys', action: 'create', payload: { scopes: ['ai:generate'], entities: ['acme'] } };
    const missing = { face: 'keys', action: 'get', payload: { id: 'key_missing' } };
    const abortedBatch = await server.post({ face: 'batch', action: 'run', payload: { mode: 'atomic', requests: [create, missing] } });
    expect([abortedBatch.status, abortedBatch.body.error.code]).toEqual([404, 'batch_aborted']);
    await expect.poll(() => recordsOf(abortedBatch.body.meta.requestId), { timeout: 2000 }).toHaveLength(2);
    expect((await recordsOf(abortedBatch.body.meta.requestId)).sort()).toEqual([
      ['keys', 'create', 404, 'batch_aborted', '0'],
      ['keys', 'get', 404, 'resource_not_found', '0'],
    ]);

    const committed = await server.post({ face: 'batch', action: 'run', payload: { mode: 'atomic', requests: [create, create] } });
    expect(committed.status).toBe(200);
    await expect.poll(() => recordsOf(committed.body.meta.requestId), { timeout: 2000 }).toEqual([
      ['keys', 'create', 200, null, '0'],
      ['keys', 'create', 200, null, '0'],
    ]);

    // Refused as a whole, before any request ran: the batch is the one call.
    const tooLarge = await server.post({ face: 'batch', action: 'run', payload: { mode: 'bestEffort', requests: Array.from({ length: 101 }, () => generateCall()) } });
    expect([tooLarge.status, tooLarge.body.error.code]).toEqual([400, 'batch_too_large']);
    await expect.poll(() => recordsOf(tooLarge.body.meta.requestId), { timeout: 2000 }).toEqual([['batch', 'run', 400, 'batch_too_large', '0']]);
  });
});

describe('a stopping server', () => {
  it('ends its live streams with their result instead of waiting for their time-out', async () => {
    const server = await startServer({ usageFlushMs: 20 });
    let opened!: () => void;
    const started = new Promise<void>((r) => (opened = r));
    const stream = postStream(
      server.url,
      { face: 'usage', action: 'live', payload: { maxSeconds: 600 }, options: { stream: true, timeout: 120_000 } },
      { authorization: `Bearer ${server.adminKey}`, 'x-entity-id': 'acme' },
      (event) => (event.event === 'start' ? opened() : undefined),
    );
    await started;
    const stopping = Date.now();
    await server.close();
    const reply = await stream;
    expect(Date.now() - stopping).toBeLessThan(3000);
    expect(reply.events.at(-1)).toMatchObject({ event: 'result', data: { data: { delivered: 0, dropped: 0 } } });
  });
});
