/**
 * The event log on every store implementation: an event is listed from its call's commit on, whether its
 * place is still pending (SQLite) or already in the log's order (PostgreSQL, and SQLite once the filler has
 * moved it), whichever way it was written; pages read across both with no duplicates or gaps, a place
 * copied and not yet deleted included; fillers running beside writers, readers and each other, as several
 * processes do, move every place exactly once, and no read misses one; the retention purge removes places
 * with their events.
 */
import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteCopiedPlaces, fillEventLog, newestPlace } from '../../src/store/event-log-fill.js';
import { eventPage, listEvents, type EventLogQuery } from '../../src/store/event-log.js';
import { purgeEvents, writeEvents, type EventOrigin } from '../../src/store/events.js';
import { newId } from '../../src/store/secrets.js';
import { openShippedStore } from '../../src/server/shipped.js';
import { embeddedStore, storeKind } from '../../src/store/open.js';
import { writeUsage } from '../../src/store/write-usage.js';
import { commitGroupOf } from '../../src/store/commit-group.js';
import { CallTransaction } from '../../src/store/transaction.js';
import type { Db, EventTable } from '../../src/store/schema.js';
import { implementations, type StoreLocation } from './implementations.js';

const TYPES = ['payments.intent.succeeded', 'billing.invoice.paid', 'keys.key.created'];

describe.each(implementations)('the event log on $name', (impl) => {
  let location: StoreLocation;
  let db: Db;
  /** Where a commit puts an event's place: pending on SQLite, in the log on PostgreSQL. */
  const placed = (n: number, moved = 0) => (storeKind(db) === 'sqlite' ? [n - moved, moved] : [0, n]);
  const places = async (entityId: string) => [await count('event_log_pending', entityId), await count('event_log', entityId)];

  beforeAll(async () => {
    location = await impl.create();
    db = await openShippedStore(location.config);
  });
  afterAll(async () => {
    await db?.destroy();
    await location?.remove();
  });

  const origin = (entityId: string): EventOrigin => ({ mode: 'test', entityId, apiVersion: '2026-09-01', requestId: newId('req') });
  /** Writes `count` events for the entity as a call's commit does, one event per write. */
  async function emit(entityId: string, count: number, first = 0): Promise<void> {
    for (let i = first; i < first + count; i++) await writeEvents(db, origin(entityId), [{ id: newId('evt'), type: TYPES[i % TYPES.length]!, data: { i } }]);
  }
  const count = async (table: 'events' | 'event_log' | 'event_log_pending', entityId: string) =>
    Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).where('entity_id', '=', entityId).executeTakeFirstOrThrow()).n);
  /** Newest first by stored time, then by id. */
  const logOrder = (rows: EventTable[]) => [...rows].sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id)).map((r) => r.id);
  const storedEvents = (entityId: string) => db.selectFrom('events').selectAll().where('entity_id', '=', entityId).execute();

  /** Every page of the entity's log, `limit` at a time. */
  async function allPages(entityId: string, query: Omit<EventLogQuery, 'limit' | 'after'> = {}, limit = 4): Promise<string[]> {
    const ids: string[] = [];
    for (let after: EventTable | undefined; ; ) {
      const page = await listEvents(db, { mode: 'test', entityId }, { ...query, limit, ...(after ? { after } : {}) });
      ids.push(...page.slice(0, limit).map((e) => e.id));
      if (page.length <= limit) return ids;
      after = page[limit - 1];
    }
  }

  it('lists an event from its commit on, and the same once the filler has moved its place', async () => {
    await emit('fresh', 3);
    expect(await places('fresh')).toEqual(placed(3));
    const before = await allPages('fresh');
    expect(before).toEqual(logOrder(await storedEvents('fresh')));
    await fillEventLog(db);
    expect(await places('fresh')).toEqual([0, 3]);
    expect(await allPages('fresh')).toEqual(before);
  });

  it('places the events of a group commit, and none of a transaction rolled back', async () => {
    const group = commitGroupOf(db);
    await Promise.all([0, 1, 2].map((i) => group.commit({ events: { origin: origin('grouped'), events: [{ id: newId('evt'), type: TYPES[i]!, data: { i } }] } })));
    expect(await places('grouped')).toEqual(placed(3));
    expect(await allPages('grouped')).toEqual(logOrder(await storedEvents('grouped')));
    const tx = new CallTransaction(db);
    await writeEvents(tx.db, origin('undone'), [{ id: newId('evt'), type: TYPES[0]!, data: {} }]);
    await tx.rollback();
    expect([await count('events', 'undone'), ...(await places('undone'))]).toEqual([0, 0, 0]);
  });

  it('pages across moved and pending places with no duplicates or gaps, filters and ranges included', async () => {
    await emit('mixed', 9);
    await fillEventLog(db);
    await emit('mixed', 8, 9);
    await emit('neighbour', 5);
    const stored = await storedEvents('mixed');
    expect(await places('mixed')).toEqual(placed(17, 9));
    for (const limit of [1, 3, 5, 17, 100]) expect(await allPages('mixed', {}, limit)).toEqual(logOrder(stored));
    expect(await allPages('mixed', { types: ['billing.*', 'keys.key.created'] }, 2)).toEqual(logOrder(stored.filter((e) => e.type !== TYPES[0])));
    // A range whose bounds fall in each part: the stored times of the 5th and of the 14th event.
    const times = stored.map((e) => e.created_at).sort();
    const [from, to] = [times[4]!, times[13]!];
    expect(await allPages('mixed', { from, to }, 3)).toEqual(logOrder(stored.filter((e) => e.created_at >= from && e.created_at < to)));
    if (storeKind(db) === 'sqlite') {
      // Copied into the log as a fill's first step does, and not yet deleted: in both tables, listed once.
      await writeUsage(db, [sql`insert into event_log select mode, entity_id, created_at, id, type from event_log_pending where entity_id = 'mixed'`.compile(db)]);
      expect(await places('mixed')).toEqual([8, 17]);
      for (const limit of [1, 3, 17, 100]) expect(await allPages('mixed', {}, limit)).toEqual(logOrder(stored));
    }
  });

  it('moves every place exactly once with fillers running beside writers and each other', async () => {
    const others = await Promise.all([openShippedStore(location.config), openShippedStore(location.config)]);
    try {
      let writing = true;
      const fillers = others.map(async (other) => {
        // Yielding each time: where nothing is ever pending (PostgreSQL) a pass awaits nothing.
        while (writing) await Promise.all([fillEventLog(other), new Promise((resolve) => setImmediate(resolve))]);
      });
      // A reader beside them: each read lists every event once, and never fewer than the read before.
      const readCounts: number[] = [];
      const reader = (async () => {
        while (writing) {
          const ids = await allPages('crowd-a', {}, 1000);
          expect(new Set(ids).size).toBe(ids.length);
          readCounts.push(ids.length);
          await new Promise((resolve) => setImmediate(resolve));
        }
      })();
      await Promise.all(['crowd-a', 'crowd-b', 'crowd-c'].map((entity) => emit(entity, 40)));
      writing = false;
      await Promise.all([...fillers, reader]);
      expect(readCounts.length).toBeGreaterThan(5);
      expect(readCounts).toEqual([...readCounts].sort((a, b) => a - b));
      await fillEventLog(db);
      for (const entity of ['crowd-a', 'crowd-b', 'crowd-c']) {
        expect(await places(entity)).toEqual([0, 40]);
        expect(await allPages(entity, {}, 15)).toEqual(logOrder(await storedEvents(entity)));
      }
    } finally {
      await Promise.all(others.map((other) => other.destroy()));
    }
  });

  it.runIf(impl.name === 'SQLite')('deletes no place whose rowid a fill could not have copied', async () => {
    const store = embeddedStore(db)!;
    await emit('reused', 3);
    const newest = () => newestPlace(db, store)!;
    // A fill that read the newest place, then waited while another moved everything, and new places took
    // the emptied table's first rowids again: its delete must leave them, for it never copied them.
    const stale = newest();
    await fillEventLog(db);
    await emit('reused', 2, 3);
    expect(newest().rowid).toBeLessThanOrEqual(stale.rowid);
    await deleteCopiedPlaces(db, store, stale);
    expect(await places('reused')).toEqual([2, 3]);
  });

  it.runIf(impl.name === 'SQLite')('reads a page from the main file first, then the usage file', () => {
    // What makes a page whole while a fill copies and deletes (event-log.ts): one statement's read of each
    // file begins at its Transaction instruction, and those run in the order the files are attached.
    const page = eventPage(db, { mode: 'test', entityId: 'mixed' }, { limit: 10 }).compile();
    const program = embeddedStore(db)!.read(CompiledQuery.raw(`explain ${page.sql}`, [...page.parameters])) as { opcode: string; p1: number }[];
    const files = (embeddedStore(db)!.read(CompiledQuery.raw('pragma database_list')) as { seq: number; name: string }[]).map((f) => [f.seq, f.name]);
    const opened = program.filter((step) => step.opcode === 'Transaction').map((step) => Object.fromEntries(files)[step.p1]);
    expect(opened).toEqual(['main', 'usage']);
  });

  it('purges the places of purged events, moved or pending', async () => {
    await emit('old', 4);
    await fillEventLog(db);
    await emit('old', 2, 4);
    expect(await places('old')).toEqual(placed(6, 4));
    expect(await purgeEvents(db, new Date(Date.now() + 60_000).toISOString())).toBeGreaterThanOrEqual(6);
    expect(await places('old')).toEqual([0, 0]);
    expect(await count('events', 'old')).toBe(0);
    expect(await allPages('old')).toEqual([]);
  });
});
