/**
 * The embedded store's writer thread (src/store/sqlite/): one transaction at a time, statements of others
 * held until it ends and then run in order, statements outside transactions sent together committed together
 * but failing alone (batches sent with them, and what came while the writer was busy, too; a batch whole or
 * not at all), reads outside transactions never waiting, a writer freed by every way a transaction can
 * end, the WAL checkpointed beside it, and temporary data (statement journals) kept in memory.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openShippedStore } from '../../src/server/shipped.js';
import { embeddedStore } from '../../src/store/open.js';

let db: Kysely<any>;
const rows = async () => (await db.selectFrom('notes').select('text').orderBy('id').execute()).map((r) => r.text);
/** Resolves to 'pending' when `promise` has not settled within `ms`. */
const within = <T>(promise: Promise<T>, ms = 100) => Promise.race([promise, new Promise<'pending'>((r) => setTimeout(() => r('pending'), ms))]);

let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'dispatch-writer-'));
  db = (await openShippedStore({ dataDir })) as Kysely<any>;
  await sql`create table notes (id integer primary key autoincrement, text text not null unique)`.execute(db);
});
afterAll(() => db.destroy());

describe('the SQLite writer thread', () => {
  it('leaves the WAL to the checkpointer: what commits is soon copied into the database file', async () => {
    // The WAL index's header (the -shm file, native byte order): the last valid frame at byte 16, and how many
    // frames have been copied back at byte 96. The writer's own checkpoints only come past 10,000 pages.
    const shm = () => readFileSync(`${join(dataDir, 'dispatch.sqlite')}-shm`);
    const frames = () => ({ last: shm().readUInt32LE(16), copied: shm().readUInt32LE(96) });
    await sql`create table wal_filler (id integer primary key, body text not null)`.execute(db);
    // One transaction: a checkpoint between several could start the WAL over, and leave fewer frames in it.
    await db.insertInto('wal_filler').values(Array.from({ length: 1000 }, () => ({ body: 'x'.repeat(1000) }))).execute();
    expect(frames().last).toBeGreaterThan(200);
    await expect.poll(() => frames().copied === frames().last, { timeout: 3000 }).toBe(true);
  });

  it('keeps its temporary data in memory, so that a savepoint\'s journal never becomes a temp file', async () => {
    // Statements in a transaction run on the writer's connection; 2 is MEMORY.
    const setting = await db.transaction().execute((trx) => sql<{ temp_store: number }>`pragma temp_store`.execute(trx));
    expect(setting.rows).toEqual([{ temp_store: 2 }]);
  });

  it('holds a write outside any transaction until the open one ends, then runs it after', async () => {
    const trx = await db.startTransaction().execute();
    await trx.insertInto('notes').values({ text: 'in the transaction' }).execute();
    const outside = db.insertInto('notes').values({ text: 'outside' }).execute();
    expect(await within(outside)).toBe('pending');
    // A read outside the transaction does not wait for it, and sees only what is committed.
    expect(await within(rows())).toEqual([]);
    await trx.commit().execute();
    await outside;
    expect(await rows()).toEqual(['in the transaction', 'outside']);
  });

  it('runs statements sent together in one transaction in the order they were sent', async () => {
    const trx = await db.startTransaction().execute();
    const [, seen] = await Promise.all([trx.insertInto('notes').values({ text: 'sent first' }).execute(), trx.selectFrom('notes').select('text').execute()]);
    expect(seen.map((r) => r.text)).toContain('sent first');
    await trx.rollback().execute();
    expect(await rows()).not.toContain('sent first');
  });

  it('is free again after a transaction fails and rolls back', async () => {
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.insertInto('notes').values({ text: 'doomed' }).execute();
        await trx.insertInto('notes').values({ text: 'outside' }).execute();
      }),
    ).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_UNIQUE' });
    expect(await within(db.insertInto('notes').values({ text: 'after' }).execute(), 2000)).not.toBe('pending');
    expect(await rows()).toEqual(['in the transaction', 'outside', 'after']);
  });

  it('answers a statement the writer refuses with SQLite\'s error, and goes on', async () => {
    await expect(sql`insert into nowhere values (1)`.execute(db)).rejects.toThrow(/no such table: nowhere/);
    expect(await rows()).toHaveLength(3);
  });

  it('runs statements outside transactions sent together in one transaction, each failing alone', async () => {
    const before = await rows();
    const outcomes = await Promise.allSettled([
      db.insertInto('notes').values({ text: 'together 1' }).execute(),
      db.insertInto('notes').values({ text: 'after' }).execute(),
      db.insertInto('notes').values({ text: 'together 2' }).execute(),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'SQLITE_CONSTRAINT_UNIQUE' });
    expect(await rows()).toEqual([...before, 'together 1', 'together 2']);
  });

  it('runs again, each on its own, the statements sent with one that rolls the whole transaction back', async () => {
    const before = await rows();
    const outcomes = await Promise.allSettled([
      db.insertInto('notes').values({ text: 'before the rollback' }).execute(),
      // A conflict resolved by ROLLBACK undoes the whole transaction, not only its own statement.
      sql`insert or rollback into notes (text) values ('after')`.execute(db),
      db.insertInto('notes').values({ text: 'after the rollback' }).execute(),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'SQLITE_CONSTRAINT_UNIQUE' });
    expect(await rows()).toEqual([...before, 'before the rollback', 'after the rollback']);
  });

  it('runs again, each on its own, the statements sent together whose commit failed, failing only the one at fault', async () => {
    await sql`create table parents (id integer primary key)`.execute(db);
    await sql`create table children (id integer primary key, parent integer references parents (id) deferrable initially deferred)`.execute(db);
    const before = await rows();
    const outcomes = await Promise.allSettled([
      db.insertInto('notes').values({ text: 'committed 1' }).execute(),
      // Checked only at the commit: the commit of the statements sent together fails.
      db.insertInto('children').values({ parent: 999 }).execute(),
      db.insertInto('notes').values({ text: 'committed 2' }).execute(),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY' });
    expect(await rows()).toEqual([...before, 'committed 1', 'committed 2']);
    expect(await db.selectFrom('children').selectAll().execute()).toEqual([]);
  });

  it('commits the statements of bundles that came while it was busy together, failing only the one at fault', async () => {
    const store = embeddedStore(db)!;
    const before = await rows();
    // A batch that holds the writer while the next bundles come: a count over a long series.
    const series = sql`with recursive c (x) as (select 1 union all select x + 1 from c where x < 1000000) select count(*) as n from c`.compile(db);
    const busy = store.writeBatch([{ query: series, rows: JSON.stringify([{ n: 1_000_000 }]) }]);
    const bundles: Promise<unknown>[] = [];
    // What is committed when the first of them is answered: with one commit for all, the last one's row too.
    let seenByFirst: string[] = [];
    for (const send of [
      () => db.insertInto('notes').values({ text: 'while busy 1' }).execute().then(async () => void (seenByFirst = await rows())),
      () => db.insertInto('children').values({ parent: 998 }).execute(),
      // Slow too: had the first been answered on its own commit, it could not have seen this one's row.
      () => store.writeBatch([{ query: db.insertInto('notes').values({ text: 'while busy 2' }).compile() }, { query: series, rows: JSON.stringify([{ n: 1_000_000 }]) }]),
    ]) {
      bundles.push(send());
      // Each statement goes in a bundle of its own, posted at the end of this turn.
      await new Promise((resolve) => setImmediate(resolve));
    }
    const outcomes = await Promise.allSettled([busy, ...bundles]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[2] as PromiseRejectedResult).reason).toMatchObject({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY' });
    expect(await rows()).toEqual([...before, 'while busy 1', 'while busy 2']);
    expect(seenByFirst).toEqual([...before, 'while busy 1', 'while busy 2']);
  });

  it('answers what it holds every millisecond or so while messages keep coming', async () => {
    const store = embeddedStore(db)!;
    // Forty batches of a few milliseconds each, all sent at once: the writer is never out of messages.
    const series = sql`with recursive c (x) as (select 1 union all select x + 1 from c where x < 30000) select count(*) as n from c`.compile(db);
    const answered = await Promise.all(
      Array.from({ length: 40 }, () => store.writeBatch([{ query: series, rows: JSON.stringify([{ n: 30_000 }]) }]).then(() => performance.now())),
    );
    // Replies held until the writer ran out of messages would all have come at one or two instants.
    const instants = new Set(answered.map((at) => Math.round(at * 2)));
    expect(instants.size).toBeGreaterThanOrEqual(10);
  });

  it('runs a batch sent with statements outside transactions in their transaction, whole or not at all', async () => {
    const store = embeddedStore(db)!;
    const insert = (text: string) => ({ query: db.insertInto('notes').values({ text }).compile() });
    const before = await rows();
    // Sent from an immediate queued before the statements' own flush: the batch takes them along, in one bundle.
    const batches = new Promise<[PromiseSettledResult<void>, PromiseSettledResult<void>]>((resolve) =>
      setImmediate(() => resolve(Promise.allSettled([store.writeBatch([insert('batch 1'), insert('bundled 1')]), store.writeBatch([insert('batch 2')])] as const))),
    );
    const statements = Promise.allSettled([db.insertInto('notes').values({ text: 'bundled 1' }).execute(), db.insertInto('notes').values({ text: 'bundled 2' }).execute()]);
    const [[refused, written], [first, second]] = await Promise.all([batches, statements]);
    // The first batch met a row of the statements before it, and left nothing of its own; the rest committed.
    expect(refused).toMatchObject({ status: 'rejected', reason: { code: 'SQLITE_CONSTRAINT_UNIQUE' } });
    expect([written.status, first.status, second.status]).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    expect(await rows()).toEqual([...before, 'bundled 1', 'bundled 2', 'batch 2']);
  });

  it('on closing, rolls back the open transaction, runs the statements held outside any, then refuses more at once', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dispatch-writer-'));
    const other = (await openShippedStore({ dataDir })) as Kysely<any>;
    await sql`create table t (x integer)`.execute(other);
    const trx = await other.startTransaction().execute();
    await trx.insertInto('t').values({ x: 1 }).execute();
    const held = other.insertInto('t').values({ x: 2 }).execute();
    expect(await within(held)).toBe('pending');
    await other.destroy();
    await held;
    await expect(within(other.insertInto('t').values({ x: 3 }).execute())).rejects.toThrow(/destroyed|closed/);
    const reopened = (await openShippedStore({ dataDir })) as Kysely<any>;
    expect((await reopened.selectFrom('t').select('x').execute()).map((r) => r.x)).toEqual([2]);
    await reopened.destroy();
  });
});
