/**
 * Exact sums of metered quantities on every store implementation: ingested meter values and reported units are
 * kept and added up as exact decimals (0.1 + 0.2 is 0.3; eleven events of 999 999 999 999 999 are
 * 10 999 999 999 999 989, past what a float holds), in `usage.summary` and in the quantities invoices rate; and a
 * store whose rollups were summed in floating point is corrected by migration 0018_exact_meter_sums.
 */
import SQLite from 'better-sqlite3';
import { join } from 'node:path';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usageQuantities } from '../../src/faces/billing/usage-quantity.js';
import { migrationSet } from '../../src/store/migration-set.js';
import { shippedMigrations, openShippedStore } from '../../src/server/shipped.js';
import type { Db } from '../../src/store/schema.js';
import { newId } from '../../src/store/secrets.js';
import { ingest } from '../../src/faces/usage/ingest.js';
import { UsageRecorder } from '../../src/faces/usage/recorder.js';
import { summarize } from '../../src/faces/usage/summary.js';
import { implementations, type StoreLocation } from './implementations.js';
import { usageTotals } from '../../src/faces/usage/totals.js';

/** The migrations of a store that serves the shipped catalogue: the core's and the modules'. */
const SHIPPED = migrationSet(shippedMigrations());

const BIG = 999_999_999_999_999;
const EXACT_BIG_SUM = '10999999999999989';
const MIGRATION = '0018_exact_meter_sums';

const bigEvents = (prefix: string) => Array.from({ length: 11 }, (_, i) => ({ id: `${prefix}-${i}`, type: 'rows', value: BIG }));
const hourAgo = () => new Date(Date.now() - 3_600_000).toISOString();

describe.each(implementations)('exact sums on $name', (impl) => {
  let location: StoreLocation;
  let db: Db;
  beforeAll(async () => {
    location = await impl.create();
    db = await openShippedStore(location.config);
  });
  afterAll(async () => {
    await db?.destroy();
    await location?.remove();
  });

  const scopeOf = (entityId: string) => ({ mode: 'test' as const, entities: [entityId], filter: {} });
  const origin = (entityId: string) => ({ mode: 'test' as const, entityId, keyId: 'key_exact' });

  it('adds up ingested values exactly, in the summary and in the quantities invoices rate', async () => {
    const events = [...bigEvents('big'), { id: 'f-1', type: 'gb', value: 0.1 }, { id: 'f-2', type: 'gb', value: 0.2 }];
    // Two requests, so that the second adds to rollups the first wrote (the store's own addition).
    expect((await ingest(db, origin('meters'), { events: events.slice(0, 6) })).accepted).toBe(6);
    expect((await ingest(db, origin('meters'), { events: events.slice(6) })).accepted).toBe(7);

    const from = hourAgo();
    const to = new Date(Date.now() + 120_000).toISOString();
    const summary = await summarize(db, scopeOf('meters'), { from, to }, 'usd');
    expect(summary.meters).toEqual([
      { type: 'gb', events: 2, value: '0.3' },
      { type: 'rows', events: 11, value: EXACT_BIG_SUM },
    ]);
    const quantity = usageQuantities(db, { mode: 'test', entityId: 'meters' }, usageTotals);
    expect(await quantity({ source: 'meter', meterType: 'rows' }, from, to)).toBe(EXACT_BIG_SUM);
    expect(await quantity({ source: 'meter', meterType: 'gb' }, from, to)).toBe('0.3');
  });

  it('adds up reported units exactly, at every grain', async () => {
    const recorder = new UsageRecorder(db, { flushMs: 60_000 });
    const now = Date.now();
    for (const [i, gb] of [0.1, 0.2].entries()) {
      const at = new Date(now - i * 61_000).toISOString();
      recorder.record(
        {
          id: newId('use'), request_id: newId('req'), at, key_id: 'key_exact', mode: 'test', entity_id: 'units', face: 'storage', action: 'put',
          api_version: '2027-03-01', status: 200, error_code: null, latency_ms: 1, units: JSON.stringify({ gb }), cost: '0', currency: 'usd', replayed: 0,
        },
        0n,
      );
      // Two flushes: the second adds to the hour and day rollups the first wrote (the store's own addition).
      await recorder.flush();
    }
    await recorder.close();
    // A range of whole days reads the day rollups; a short one, minutes.
    for (const from of [new Date(now - 3 * 86_400_000).toISOString(), new Date(now - 300_000).toISOString()]) {
      expect((await summarize(db, scopeOf('units'), { from, to: new Date(now + 60_000).toISOString() }, 'usd')).totals.units).toEqual({ gb: '0.3' });
    }
  });

  it('adds up the units of one flush exactly, each minute apart, past what a float holds', async () => {
    // One flush, one key: eleven records alternating between this minute and two minutes ago, so that each
    // record's minute differs from the one before; each minute's amounts add past 2^53, and with decimals besides.
    const HUGE = 4_000_000_000_000_001;
    const recorder = new UsageRecorder(db, { flushMs: 60_000 });
    const now = Date.now();
    for (let i = 0; i < 11; i++) {
      const at = new Date(i % 2 === 0 ? now : now - 120_000).toISOString();
      const units = { rows: HUGE, ...(i < 2 ? { gb: [0.1, 0.2][i]! } : {}) };
      recorder.record(
        {
          id: newId('use'), request_id: newId('req'), at, key_id: 'key_exact', mode: 'test', entity_id: 'one-flush', face: 'storage', action: 'put',
          api_version: '2027-03-01', status: 200, error_code: null, latency_ms: 1, units: JSON.stringify(units), cost: '0', currency: 'usd', replayed: 0,
        },
        0n,
      );
    }
    await recorder.close();
    const to = new Date(now + 60_000).toISOString();
    const days = await summarize(db, scopeOf('one-flush'), { from: new Date(now - 3 * 86_400_000).toISOString(), to }, 'usd');
    expect(days.totals.units).toEqual({ rows: '44000000000000011', gb: '0.3' });
    // This minute alone: the six records made now, 0.1 GB among them.
    const minutes = await summarize(db, scopeOf('one-flush'), { from: new Date(now - 60_000).toISOString(), to }, 'usd');
    expect(minutes.totals.units).toEqual({ rows: '24000000000000006', gb: '0.1' });
  });

  it('corrects a store whose rollups were summed in floating point', async () => {
    const old = await impl.create();
    try {
      const previous = SHIPPED.names[SHIPPED.names.indexOf(MIGRATION) - 1]!;
      const plain = plainKysely(old);
      expect((await new Migrator({ db: plain, provider: SHIPPED.provider }).migrateTo(previous)).error).toBeUndefined();

      // What the store held before: events as floats, and their rollups summed as floats (0.30000000000000004,
      // 10999999999999988), a platform meter with no events, and units summed as floats.
      const minute = new Date().toISOString().slice(0, 16);
      const time = `${minute}:30.000Z`;
      const events = [...bigEvents('old'), { id: 'g-1', type: 'gb', value: 0.1 }, { id: 'g-2', type: 'gb', value: 0.2 }];
      for (const e of events) {
        await sql`insert into usage_meter_events (mode, entity_id, id, type, subject, time, value, properties, key_id, ingested_at)
          values ('test', 'old', ${e.id}, ${e.type}, null, ${time}, ${e.value}, null, 'key_old', ${time})`.execute(plain);
      }
      const floatSum = (type: string) => events.filter((e) => e.type === type).reduce((sum, e) => sum + e.value, 0);
      expect([floatSum('gb'), floatSum('rows')]).not.toEqual([0.3, Number(EXACT_BIG_SUM)]);
      const rollups: [string, number, number][] = [['gb', 2, floatSum('gb')], ['rows', 11, floatSum('rows')], ['storage.storedByteDays', 1, 1.5]];
      for (const [type, count, value] of rollups) {
        await sql`insert into usage_meter_rollups (minute, mode, entity_id, type, events, value) values (${minute}, 'test', 'old', ${type}, ${count}, ${value})`.execute(plain);
      }
      await sql`insert into usage_unit_rollups (minute, mode, entity_id, key_id, face, action, status, unit, amount)
        values (${minute}, 'test', 'old', 'key_old', 'storage', 'put', 200, 'bytes', 1234)`.execute(plain);
      await plain.destroy();

      const migrated = await openShippedStore(old.config);
      try {
        const range = { from: hourAgo(), to: new Date(Date.now() + 120_000).toISOString() };
        const summary = await summarize(migrated, scopeOf('old'), range, 'usd');
        expect(summary.meters).toEqual([
          { type: 'gb', events: 2, value: '0.3' },
          { type: 'rows', events: 11, value: EXACT_BIG_SUM },
          { type: 'storage.storedByteDays', events: 1, value: '1.5' },
        ]);
        const units = await migrated.selectFrom('usage_unit_rollups').select('amount').where('entity_id', '=', 'old').executeTakeFirstOrThrow();
        expect(String(units.amount)).toBe('1234');
        // Events ingested after go on adding exactly to the rebuilt rollups.
        await ingest(migrated, origin('old'), { events: [{ id: 'g-3', type: 'gb', value: 0.1, time }] });
        expect((await summarize(migrated, scopeOf('old'), range, 'usd')).meters[0]).toEqual({ type: 'gb', events: 3, value: '0.4' });
      } finally {
        await migrated.destroy();
      }
    } finally {
      await old.remove();
    }
  });
});

/** A Kysely on the store with no program of ours in between, to put it in an older shape. */
function plainKysely(location: StoreLocation): Kysely<unknown> {
  const { databaseUrl, dataDir } = location.config;
  if (databaseUrl) return new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: databaseUrl }) }) });
  return new Kysely({ dialect: new SqliteDialect({ database: new SQLite(join(dataDir, 'dispatch.sqlite')) }) });
}
