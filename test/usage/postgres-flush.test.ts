/**
 * A usage flush on PostgreSQL as one prepared statement (postgres-flush.ts): it writes, byte for byte, what
 * the multi-row statements the embedded store runs wrote there, first rows and added-to rows alike, table
 * after table in their order; its notices reach a listener once it commits; it is prepared on the connection
 * it ran on, and run again elsewhere when that connection lost it; and it writes nothing when one of its rows
 * is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { openShippedStore } from '../../src/server/shipped.js';
import { postgresPool } from '../../src/store/open.js';
import type { Db } from '../../src/store/schema.js';
import { writeUsage } from '../../src/store/write-usage.js';
import { writeFlushOnPostgres } from '../../src/faces/usage/postgres-flush.js';
import { flushStatements } from '../../src/faces/usage/recorder.js';
import type { RecordWithCost } from '../../src/faces/usage/rollups.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { usageRecord } from '../helpers/usage-record.js';

const TABLES = ['usage_record_packs', 'usage_rollups', 'usage_rollups_coarse', 'usage_unit_rollups', 'usage_unit_rollups_coarse'];

/** Texts an array literal or a statement could mistake for its own syntax, and floats without a short form. */
const ODD = ['NULL', 'a,b', '{x}', 'say "hi"', 'back\\slash', "it's", ' spaced ', '', 'line\u2028break', 'ünï', '😀'];

function records(count: number, at: Date): RecordWithCost[] {
  return Array.from({ length: count }, (_, i) => {
    const units = { inputTokens: i, outputTokens: 0.1 + 0.2 * i, [`odd ${ODD[i % ODD.length]}`]: 1e-7 * i };
    const row = usageRecord({
      at: new Date(at.getTime() + i * 37_000).toISOString(),
      entity_id: `e${i % 3}`,
      key_id: `key_${i % 2}`,
      face: i % 4 === 0 ? 'payments' : 'ai',
      status: i % 5 === 0 ? 429 : 200,
      error_code: i % 5 === 0 ? ODD[i % ODD.length]! : null,
      api_version: i % 7 === 0 ? null : '2026-09-01',
      latency_ms: (0.1 + 0.2) * i,
      units: JSON.stringify(units),
      cost: ODD[i % ODD.length]!,
      replayed: i % 6 === 0 ? 1 : 0,
    });
    // Above 2^53, where a float would round.
    return { row, costNanos: 9_007_199_254_740_993n + BigInt(i), units };
  });
}

describe('the usage flush on PostgreSQL', () => {
  const databases: { url: string; drop: () => Promise<void> }[] = [];
  const stores: Db[] = [];
  const open = async () => {
    const database = await createTestDatabase();
    databases.push(database);
    const db = await openShippedStore({ dataDir: '/nonexistent', databaseUrl: database.url });
    stores.push(db);
    return db;
  };
  let prepared: Db;
  let statements: Db;
  beforeAll(async () => {
    [prepared, statements] = [await open(), await open()];
  });
  afterAll(async () => {
    await Promise.all(stores.map((db) => db.destroy()));
    await Promise.all(databases.map((database) => database.drop()));
  });

  /** Every row of every usage table, as PostgreSQL prints it, in order. */
  const contents = async (db: Db) => {
    const pool = postgresPool(db)!;
    const tables: Record<string, string[]> = {};
    for (const table of TABLES) tables[table] = (await pool.query<{ row: string }>(`select t::text as row from ${table} t order by 1`)).rows.map((r) => r.row);
    return tables;
  };

  it('writes what the multi-row statements write, and adds to the rows they would add to', async () => {
    const at = new Date('2026-11-29T10:58:30.000Z');
    // The second flush falls on the first's minutes, hours and days, and on new ones.
    const flushes = [records(40, at), records(25, new Date(at.getTime() + 600_000))];
    for (const flush of flushes) {
      await writeFlushOnPostgres(prepared, flush);
      await writeUsage(statements, flushStatements(statements, flush));
    }
    const written = await contents(prepared);
    expect(written).toEqual(await contents(statements));
    // Packed, a pack per partition of each flush's part, and unpacked by the view as they were written.
    expect(written.usage_record_packs).toHaveLength(6);
    const unpacked = (await postgresPool(prepared)!.query('select * from usage_records order by id')).rows;
    expect(unpacked).toEqual(flushes.flat().map((r) => r.row).sort((a, b) => (a.id < b.id ? -1 : 1)));
    // Rows were added to, not only inserted: some minute holds calls of both flushes.
    const calls = (await postgresPool(prepared)!.query<{ calls: number }>('select max(calls) as calls from usage_rollups_coarse')).rows[0]!.calls;
    expect(calls).toBeGreaterThan(1);
  });

  it('sends its notices once it commits, and is prepared on its connection', async () => {
    const listener = new pg.Client({ connectionString: databases[0]!.url });
    await listener.connect();
    try {
      const heard: string[] = [];
      listener.on('notification', (message) => heard.push(message.payload!));
      await listener.query('LISTEN dispatch_usage');
      await writeFlushOnPostgres(prepared, records(3, new Date()), () => ['first', 'second']);
      await expect.poll(() => heard, { timeout: 2000 }).toEqual(['first', 'second']);
      // The pool hands out the connection given back last: the one the statement ran on.
      const names = (await postgresPool(prepared)!.query<{ name: string }>('select name from pg_prepared_statements')).rows.map((r) => r.name);
      expect(names).toContain('usage.flush');
    } finally {
      await listener.end();
    }
  });

  it('writes the tables in the order the multi-row statements did, so that processes of both lock alike', async () => {
    const db = await open();
    const pool = postgresPool(db)!;
    await pool.query(`create table written (n serial, name text);
      create function log_write() returns trigger language plpgsql as $$ begin insert into written (name) values (tg_table_name); return new; end $$`);
    for (const table of TABLES) await pool.query(`create trigger log_${table} before insert on ${table} for each row execute function log_write()`);
    const flush = records(2, new Date('2026-11-29T10:58:30.000Z'));
    const order = async () => [...new Set((await pool.query<{ name: string }>('select name from written order by n')).rows.map((r) => r.name))];
    await writeUsage(db, flushStatements(db, flush));
    const before = await order();
    expect(before).toEqual(TABLES);
    await pool.query('truncate written');
    // Records of their own, at the same times: a pack's newest id is unique.
    await writeFlushOnPostgres(db, records(2, new Date('2026-11-29T10:58:30.000Z')));
    expect(await order()).toEqual(before);
  });

  it('takes the records a program from before the packs writes into the view, each as a pack', async () => {
    const pool = postgresPool(prepared)!;
    const { row } = records(1, new Date())[0]!;
    const columns = Object.keys(row);
    await pool.query(`insert into usage_records (${columns.join(', ')}) values (${columns.map((_, i) => `$${i + 1}`).join(', ')})`, Object.values(row));
    expect((await pool.query('select * from usage_records where id = $1', [row.id])).rows).toEqual([row]);
    expect((await pool.query('select first_id, last_id from usage_record_packs where last_id = $1', [row.id])).rows).toEqual([{ first_id: row.id, last_id: row.id }]);
  });

  it('runs again, on another connection, a statement its connection no longer holds', async () => {
    await writeFlushOnPostgres(prepared, records(2, new Date()));
    const pool = postgresPool(prepared)!;
    const count = async () => (await pool.query<{ n: string }>('select count(*) as n from usage_records')).rows[0]!.n;
    const before = Number(await count());
    // What a pooler handing out another server connection, or a DEALLOCATE, leaves: node-postgres thinks it prepared.
    await pool.query('deallocate all');
    await writeFlushOnPostgres(prepared, records(3, new Date()));
    expect(Number(await count())).toBe(before + 3);
    await writeFlushOnPostgres(prepared, records(1, new Date()));
    expect(Number(await count())).toBe(before + 4);
  });

  it('writes nothing of a flush whose row is refused', async () => {
    const before = await contents(prepared);
    const flush = records(4, new Date());
    flush[2]!.row.face = 'a\u0000i';
    await expect(writeFlushOnPostgres(prepared, flush)).rejects.toThrow(/0x00/);
    expect(await contents(prepared)).toEqual(before);
  });
});
