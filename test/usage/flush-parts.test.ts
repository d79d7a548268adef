/**
 * A usage flush in parts of whole entities (flush-parts.ts): every record lands in exactly one part, with
 * the other records of its partition where they fit, in order; a flush of several parts, on each store,
 * gives rollups of every grain that add up to its raw records exactly, as one transaction did; and on
 * PostgreSQL, a part the store refuses a record of costs only that record, and records an outage left
 * unwritten wait in the order they came, the oldest dropped beyond the buffer, until the store is back.
 */
import fc from 'fast-check';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partsOf } from '../../src/faces/usage/flush-parts.js';
import { UsageRecorder } from '../../src/faces/usage/recorder.js';
import { summarize } from '../../src/faces/usage/summary.js';
import { openShippedStore } from '../../src/server/shipped.js';
import type { Db } from '../../src/store/schema.js';
import { implementations, type StoreLocation } from '../store/implementations.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { usageRecord } from '../helpers/usage-record.js';

describe('partsOf', () => {
  it('keeps each partition whole in one part where it fits, in order, and fills parts up to their size', () => {
    const records = fc.array(fc.record({ partition: fc.integer({ min: 0, max: 7 }) }), { maxLength: 300 });
    fc.assert(
      fc.property(records, fc.integer({ min: 1, max: 60 }), (input, most) => {
        const numbered = input.map((r, i) => ({ ...r, i }));
        const parts = partsOf(numbered, (r) => String(r.partition), most);
        // Every record once.
        expect(parts.flat().map((r) => r.i).sort((a, b) => a - b)).toEqual(numbered.map((r) => r.i));
        for (const part of parts) {
          expect(part.length).toBeGreaterThan(0);
          expect(part.length).toBeLessThanOrEqual(most);
        }
        for (let partition = 0; partition <= 7; partition++) {
          const arrived = numbered.filter((r) => r.partition === partition).map((r) => r.i);
          // Each partition's records in the order they came, part after part.
          expect(parts.flat().filter((r) => r.partition === partition).map((r) => r.i)).toEqual(arrived);
          // In one part when they fit in one.
          const holding = parts.filter((part) => part.some((r) => r.partition === partition));
          if (arrived.length <= most) expect(holding.length).toBeLessThanOrEqual(1);
        }
        // Two neighbouring parts could not have been one.
        for (let p = 1; p < parts.length; p++) {
          const firstOfNext = parts[p]!.filter((r) => r.partition === parts[p]![0]!.partition).length;
          expect(parts[p - 1]!.length + firstOfNext).toBeGreaterThan(most);
        }
      }),
    );
  });
});

describe.each(implementations)('a flush of several parts on $name', (impl) => {
  let location: StoreLocation;
  let db: Db;
  beforeAll(async () => {
    location = await impl.create();
    db = await openShippedStore(location.config);
  });
  afterAll(async () => {
    await db.destroy();
    await location.remove();
  });

  const at = new Date(Date.now() - 2 * 3_600_000).toISOString();
  const row = (entity: string) => usageRecord({ at, key_id: 'key_parts', entity_id: entity, units: '{"inputTokens":3}' });


  it('adds every record to the rollups of every grain, exactly', async () => {
    // 1,100 records in one flush: one entity above a part's 500 records, and three that share a part.
    const counts: Record<string, number> = { big: 600, mid: 250, small: 150, tiny: 100 };
    const recorder = new UsageRecorder(db, { flushMs: 60_000 });
    for (const [entity, count] of Object.entries(counts)) {
      for (let i = 0; i < count; i++) recorder.record(row(entity), 500_000n, { inputTokens: 3 });
    }
    await recorder.close();
    expect(recorder.dropped).toBe(0);

    for (const [entity, count] of Object.entries(counts)) {
      const raw = await db.selectFrom('usage_records').select((eb) => eb.fn.countAll<number>().as('n')).where('entity_id', '=', entity).executeTakeFirstOrThrow();
      expect(Number(raw.n)).toBe(count);
      // A summary over whole days reads day rollups, one over the minutes around `at` reads minute rollups.
      const scope = { mode: 'test' as const, entities: [entity], filter: {} };
      const days = await summarize(db, scope, { from: new Date(Date.now() - 10 * 86_400_000).toISOString(), to: new Date(Date.now() + 86_400_000).toISOString() }, 'usd');
      const minutes = await summarize(db, scope, { from: new Date(Date.parse(at) - 60_000).toISOString(), to: new Date(Date.parse(at) + 60_000).toISOString() }, 'usd');
      // Grouped by hour, the whole hours around `at` come from hour rollups.
      const around = { from: new Date(Date.parse(at) - 3 * 3_600_000).toISOString(), to: new Date(Date.parse(at) + 3 * 3_600_000).toISOString() };
      const hours = await summarize(db, scope, { ...around, groupBy: ['hour'] }, 'usd');
      for (const summary of [days, minutes, hours]) {
        expect(summary.totals.calls).toBe(count);
        expect(summary.totals.units).toEqual({ inputTokens: String(3 * count) });
        expect(summary.totals.cost).toBe((count * 0.0005).toFixed(9).replace(/0+$/, '').replace(/\.$/, ''));
      }
    }
  });
});

/** A TCP proxy in front of PostgreSQL that can be cut and restored, as the network between them failing would. */
async function cuttableProxy() {
  let open = true;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    if (!open) return void client.destroy();
    const upstream = connect(5432, '127.0.0.1');
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', end).on('close', end);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    cut() {
      open = false;
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      open = true;
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

describe('a flush on PostgreSQL when a part fails', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let db: Db;
  beforeAll(async () => {
    database = await createTestDatabase();
    db = await openShippedStore({ dataDir: '/dev/null/unused', databaseUrl: database.url });
  });
  afterAll(async () => {
    await db.destroy();
    await database.drop();
  });

  const row = (entity: string, face = 'ai') => usageRecord({ key_id: 'key_outage', entity_id: entity, face, cost: '0' });

  const callsOf = async (entity: string) =>
    Number((await db.selectFrom('usage_rollups').select((eb) => eb.fn.sum<string>('calls').as('n')).where('entity_id', '=', entity).executeTakeFirstOrThrow()).n ?? 0);
  const idsOf = async (prefix: string) =>
    (await db.selectFrom('usage_records').select('id').where('entity_id', 'like', `${prefix}%`).execute()).map((r) => r.id).sort();

  it('writes the other parts whole when one holds a record the store refuses', async () => {
    // Three parts, of 400, 300 and 300 records; PostgreSQL refuses a NUL character in the second.
    const recorder = new UsageRecorder(db, { flushMs: 60_000 });
    const sizes = { 'refused-1': 400, 'refused-2': 300, 'refused-3': 300 };
    for (const [entity, count] of Object.entries(sizes)) {
      for (let i = 0; i < count; i++) recorder.record(row(entity, entity === 'refused-2' && i === 150 ? 'a\u0000i' : 'ai'), 0n);
    }
    await recorder.close();
    expect(recorder.dropped).toBe(1);
    expect((await idsOf('refused-')).length).toBe(999);
    expect([await callsOf('refused-1'), await callsOf('refused-2'), await callsOf('refused-3')]).toEqual([400, 299, 300]);
  });

  it('keeps what an outage left unwritten in the order it came, the oldest dropped beyond the buffer', async () => {
    const proxy = await cuttableProxy();
    const through = await openShippedStore({ dataDir: '/dev/null/unused', databaseUrl: database.url.replace('127.0.0.1:5432', `127.0.0.1:${proxy.port}`) });
    try {
      proxy.cut();
      const recorder = new UsageRecorder(through, { flushMs: 60_000, maxBuffered: 700 });
      const sent: string[] = [];
      const send = (entity: string, count: number) => {
        for (let i = 0; i < count; i++) {
          const record = row(entity);
          sent.push(record.id);
          recorder.record(record, 0n);
        }
      };
      // Two entities' records, interleaved in batches: parts group them by entity, the buffer must not.
      for (const entity of ['outage-a', 'outage-b', 'outage-a', 'outage-b']) send(entity, 150);
      const failing = recorder.flush();
      // Arrive while the flush fails: with the 600 it kept, 200 more than the buffer holds.
      send('outage-c', 300);
      await failing;
      expect(recorder.dropped).toBe(200);
      proxy.restore();
      await recorder.close();
      // The newest 700, each once: the oldest 200 (outage-a's first batch, then half of outage-b's) are dropped.
      expect(await idsOf('outage-')).toEqual(sent.slice(200).sort());
      expect([await callsOf('outage-a'), await callsOf('outage-b'), await callsOf('outage-c')]).toEqual([150, 250, 300]);
    } finally {
      await through.destroy();
      await proxy.close();
    }
  });
});
