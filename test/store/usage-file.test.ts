/**
 * The embedded store's usage file (src/store/sqlite/usage-file.ts): usage records, their rollups and the event
 * log's order live in a second SQLite file with a writer of its own, so a usage flush holds up no call's
 * commit; a store that kept them in its main file has them moved at open, a move cut short loses nothing, and
 * two files that do not belong together are refused before anything moves; the checkpointer copies the usage
 * file's WAL back too.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompiledQuery, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openShippedStore } from '../../src/server/shipped.js';
import { fillEventLog } from '../../src/store/event-log-fill.js';
import { writeEvents } from '../../src/store/events.js';
import { embeddedStore } from '../../src/store/open.js';
import type { Db, UsageRecordTable } from '../../src/store/schema.js';
import { newId } from '../../src/store/secrets.js';
import { openConnection } from '../../src/store/sqlite/connection.worker.mjs';
import { USAGE_SCHEMA, USAGE_FILE_TABLES } from '../../src/store/sqlite/usage-file.js';
import { packsOf } from '../../src/store/usage-record-packs.js';
import { writeUsage } from '../../src/store/write-usage.js';

const opened: Db[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((db) => db.destroy()));
});

async function open(dataDir: string): Promise<Db> {
  const db = await openShippedStore({ dataDir });
  opened.push(db);
  return db;
}

const record = (entity: string): UsageRecordTable => ({
  id: newId('use'),
  request_id: newId('req'),
  at: new Date().toISOString(),
  key_id: 'key_test',
  mode: 'test',
  entity_id: entity,
  face: 'ai',
  action: 'generate',
  api_version: null,
  status: 200,
  error_code: null,
  latency_ms: 1.5,
  units: '{}',
  cost: '0',
  currency: 'usd',
  replayed: 0,
});

/** The statement that writes `rows`, packed as the recorder packs them. */
const recordsInsert = (db: Db, rows: UsageRecordTable[]) => db.insertInto('usage_record_packs').values(packsOf(rows)).compile();

/** A plain connection to a store's two files, as the store's own connections open them. */
const storeConnection = (dataDir: string) =>
  openConnection(join(dataDir, 'dispatch.sqlite'), [{ schema: USAGE_SCHEMA, path: join(dataDir, 'dispatch-usage.sqlite') }]);

/** The names of the usage file tables, and of their indexes, that a schema of the store's connection holds. */
function definitions(dataDir: string, schema: 'main' | 'usage'): string[] {
  const connection = storeConnection(dataDir);
  try {
    return connection
      .prepare(`select name from ${schema}.sqlite_master where tbl_name in (${USAGE_FILE_TABLES.map(() => '?').join(', ')}) order by name`)
      .all(...USAGE_FILE_TABLES)
      .map((row) => (row as { name: string }).name);
  } finally {
    connection.close();
  }
}

/** Records, and events whose places are in the log, written through a store that is then closed. */
let written: UsageRecordTable[] = [];
let logged: string[] = [];

async function storeWithRecords(): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dispatch-usage-move-'));
  const db = await openShippedStore({ dataDir });
  written = [record('a'), record('a'), record('b')];
  await writeUsage(db, [recordsInsert(db, written)]);
  logged = [newId('evt'), newId('evt')];
  const origin = { mode: 'test' as const, entityId: 'a', apiVersion: '2026-09-01', requestId: newId('req') };
  await writeEvents(db, origin, logged.map((id) => ({ id, type: 'keys.key.created', data: {} })));
  await fillEventLog(db);
  await db.destroy();
  return dataDir;
}

const loggedIds = async (db: Db) => (await db.selectFrom('event_log').select('id').orderBy('id').execute()).map((row) => row.id);

/**
 * Puts a store's usage file tables (or `tables` of them) back in its main file, as stores kept them before
 * the usage file held them. The tables of `keepCopyOf` stay in the usage file too; `addToMain` is a record
 * only the main file's copy gets.
 */
function toOldShape(
  dataDir: string,
  { keepCopyOf = [], addToMain, tables = USAGE_FILE_TABLES }: { keepCopyOf?: readonly string[]; addToMain?: UsageRecordTable; tables?: readonly string[] },
): void {
  const connection = storeConnection(dataDir);
  connection.transaction(() => {
    for (const table of tables) {
      const rows = connection.prepare(`select type, sql from usage.sqlite_master where tbl_name = ? and sql is not null order by type = 'table' desc`).all(table);
      for (const { sql: definition } of rows as { sql: string }[]) connection.exec(definition);
      connection.exec(`insert into main."${table}" select * from usage."${table}"`);
      if (!keepCopyOf.includes(table)) connection.exec(`drop table usage."${table}"`);
    }
    if (addToMain) {
      const [pack] = packsOf([addToMain]);
      const columns = Object.keys(pack!);
      connection.prepare(`insert into main.usage_record_packs (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})`).run(...Object.values(pack!));
    }
  })();
  connection.close();
}

describe('the usage file', () => {
  it('keeps usage tables out of the main file: a usage batch holds up no write of the calls', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dispatch-usage-file-'));
    const db = await open(dataDir);
    const store = embeddedStore(db)!;
    const main = definitions(dataDir, 'main');
    expect(main.filter((name) => USAGE_FILE_TABLES.includes(name))).toEqual([]);
    expect(definitions(dataDir, 'usage')).toEqual(expect.arrayContaining([...USAGE_FILE_TABLES, 'usage_record_packs_partition']));
    await sql`create table notes (id integer primary key, text text not null)`.execute(db);

    // A usage batch that runs for a good while (counting two million rows) before it writes its record.
    const slow = CompiledQuery.raw('with recursive n(i) as (select 1 union all select i + 1 from n where i < 2000000) select count(*) as c from n');
    const written = record('slow');
    let usageDone = false;
    const usage = writeUsage(db, [slow, recordsInsert(db, [written])]).then(() => (usageDone = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    await store.writeBatch([{ query: db.insertInto('notes' as never).values({ text: 'a call' } as never).compile() }]);
    // The call's write committed while the usage batch still ran: one writer would have run them in turn.
    expect(usageDone).toBe(false);
    await usage;
    expect(await db.selectFrom('usage_records').select('id').where('entity_id', '=', 'slow').execute()).toEqual([{ id: written.id }]);
  });

  it('moves the usage tables of a store that kept them in its main file, and a move cut short loses nothing', async () => {
    const dataDir = await storeWithRecords();
    // Back in the shape a store had before the usage file, every usage table in the main file, but for the
    // records table and the log, also left in the usage file as a move stopped between its copy and its drop
    // leaves them.
    toOldShape(dataDir, { keepCopyOf: ['usage_record_packs', 'event_log'] });
    expect(definitions(dataDir, 'main')).toEqual(expect.arrayContaining(['usage_record_packs', 'usage_record_packs_partition', 'usage_rollups']));

    const reopened = await open(dataDir);
    expect(definitions(dataDir, 'main').filter((name) => USAGE_FILE_TABLES.includes(name))).toEqual([]);
    expect(definitions(dataDir, 'usage')).toEqual(expect.arrayContaining([...USAGE_FILE_TABLES, 'usage_record_packs_partition', 'usage_rollups_minute']));
    // Every record once.
    const ids = (await reopened.selectFrom('usage_records').select('id').orderBy('id').execute()).map((row) => row.id);
    expect(ids).toEqual(written.map((r) => r.id).sort());
    expect(await loggedIds(reopened)).toEqual([...logged].sort());
    // And the moved table is written as before, by the usage file's writer.
    await writeUsage(reopened, [recordsInsert(reopened, [record('c')])]);
    expect(await reopened.selectFrom('usage_records').select('id').where('entity_id', '=', 'c').execute()).toHaveLength(1);
  });

  it('packs the records of a store that kept a row each, every value as it was, and reads them through the view', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dispatch-usage-pack-'));
    await (await openShippedStore({ dataDir })).destroy();
    // Values a pack's JSON must carry back exactly: a null, quotes and escapes, a float without a short form.
    const rows = [
      { ...record('a'), units: '{"inputTokens":3,"note \\"x\\"":0.30000000000000004}', latency_ms: 0.1 + 0.2 },
      { ...record('a'), api_version: '2026-09-01', error_code: 'rate_limited', status: 429, replayed: 1 },
      { ...record('b'), entity_id: 'b ünï 😀', key_id: "it's" },
    ];
    // The records' table as migration 0006 made it, in the usage file, where the view is now.
    const connection = storeConnection(dataDir);
    connection.exec(`drop view usage.usage_records;
      create table usage.usage_records (id text not null, request_id text not null, at text not null, key_id text not null, mode text not null,
        entity_id text not null, face text not null, action text not null, api_version text, status integer not null, error_code text,
        latency_ms double precision not null, units text not null, cost text not null, currency text not null, replayed integer not null);
      create index usage.usage_records_partition on usage_records (mode, entity_id, id);`);
    const insert = connection.prepare(`insert into usage.usage_records values (${Object.keys(rows[0]!).map(() => '?').join(', ')})`);
    for (const row of rows) insert.run(...Object.values(row));
    // A busy entity: more records in one span of time than a pack holds.
    const busy = Array.from({ length: 1100 }, (_, i) => ({ ...record('busy'), latency_ms: i }));
    for (const row of busy) insert.run(...Object.values(row));
    connection.close();

    const db = await open(dataDir);
    const all = [...rows, ...busy].sort((a, b) => (a.id < b.id ? -1 : 1));
    expect(await db.selectFrom('usage_records').selectAll().orderBy('id').execute()).toEqual(all);
    const sizes = await db.selectFrom('usage_record_packs').select(sql<number>`json_array_length(records)`.as('n')).where('entity_id', '=', 'busy').orderBy('last_id').execute();
    expect(sizes.map((pack) => pack.n)).toEqual([500, 500, 100]);
    const packs = await db.selectFrom('usage_record_packs').select(['entity_id', 'first_id', 'last_id']).where('entity_id', '!=', 'busy').orderBy('entity_id').execute();
    // Ids made in one millisecond sort in no particular order.
    const [first, last] = [rows[0]!.id, rows[1]!.id].sort();
    expect(packs).toEqual([
      { entity_id: 'a', first_id: first, last_id: last },
      { entity_id: 'b ünï 😀', first_id: rows[2]!.id, last_id: rows[2]!.id },
    ]);
    const check = storeConnection(dataDir);
    expect(check.prepare(`select type from usage.sqlite_master where name = 'usage_records'`).all()).toEqual([{ type: 'view' }]);
    // A program from before the packs, still running, writes its records into the view: each becomes a pack.
    const late = record('late');
    check.prepare(`insert into usage.usage_records values (${Object.keys(late).map(() => '?').join(', ')})`).run(...Object.values(late));
    expect(await db.selectFrom('usage_records').selectAll().where('entity_id', '=', 'late').execute()).toEqual([late]);
    // Latencies read back as the records' table kept them, whole numbers too.
    expect(check.prepare(`select distinct typeof(latency_ms) as type from usage.usage_records`).all()).toEqual([{ type: 'real' }]);
    check.close();
  });

  it('refuses a store whose two files are from different times, or whose usage file is missing, and drops nothing', async () => {
    const dataDir = await storeWithRecords();
    toOldShape(dataDir, { keepCopyOf: ['usage_record_packs'], addToMain: record('later') });
    await expect(openShippedStore({ dataDir })).rejects.toThrow(/hold usage_record_packs, with other rows/);
    // Both copies are still there, as they were.
    expect(definitions(dataDir, 'main')).toContain('usage_record_packs');
    expect(definitions(dataDir, 'usage')).toContain('usage_record_packs');

    const moved = await storeWithRecords();
    rmSync(join(moved, 'dispatch-usage.sqlite'));
    await expect(openShippedStore({ dataDir: moved })).rejects.toThrow(/does not hold usage_record_packs/);

    // A store from before the event log's order was in the usage file, whose usage file is then missing:
    // refused before the log moves, so that it is still in the main file when the usage file is put back.
    const older = await storeWithRecords();
    toOldShape(older, { tables: ['event_log'] });
    const usageFile = join(older, 'dispatch-usage.sqlite');
    const kept = readFileSync(usageFile);
    rmSync(usageFile);
    await expect(openShippedStore({ dataDir: older })).rejects.toThrow(/does not hold usage_record_packs/);
    expect(definitions(older, 'main')).toContain('event_log');
    writeFileSync(usageFile, kept);
    expect(await loggedIds(await open(older))).toEqual([...logged].sort());
    expect(definitions(older, 'main')).not.toContain('event_log');
  });

  it('has its WAL copied back by the checkpointer, as the main file does', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dispatch-usage-wal-'));
    const db = await open(dataDir);
    // The WAL index's header: the last valid frame at byte 16, the frames copied back at byte 96.
    const shm = () => readFileSync(join(dataDir, 'dispatch-usage.sqlite-shm'));
    const frames = () => ({ last: shm().readUInt32LE(16), copied: shm().readUInt32LE(96) });
    // One transaction: a checkpoint between several could start the WAL over, and leave fewer frames in it.
    const rows = Array.from({ length: 1000 }, () => ({ ...record('wal'), units: JSON.stringify({ note: 'x'.repeat(1000) }) }));
    await writeUsage(db, [recordsInsert(db, rows)]);
    expect(frames().last).toBeGreaterThan(200);
    await expect.poll(() => frames().copied === frames().last, { timeout: 3000 }).toBe(true);
  });
});
