/**
 * `usage.events` over packed records (src/faces/usage/list-records.ts): packs written by two processes, whose
 * ranges of ids overlap, each holding its records in no particular order, more packs than one read takes;
 * every way of paging through them, with filters, ranges and a mode and an entity that must not show, gives
 * each record the scope asks for once, newest first, as sorting all of them would.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UsageEventsPayload } from '../../generated/server/types.js';
import { listRecords } from '../../src/faces/usage/list-records.js';
import type { UsageScope } from '../../src/faces/usage/scope.js';
import { openShippedStore } from '../../src/server/shipped.js';
import type { Db, UsageRecordTable } from '../../src/store/schema.js';
import { newId } from '../../src/store/secrets.js';
import { packsOf } from '../../src/store/usage-record-packs.js';
import { usageRecord } from '../helpers/usage-record.js';

/** A fixed sequence of numbers in [0, 1), so that a failure shows again. */
function numbers(seed: number): () => number {
  let state = seed;
  return () => ((state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
}

const START = Date.parse('2026-11-30T10:00:00.000Z');
const next = numbers(7);
const records: UsageRecordTable[] = Array.from({ length: 900 }, (_, i) => {
  const atMs = START + Math.floor(next() * 600_000);
  return usageRecord({
    id: newId('use', atMs),
    at: new Date(atMs).toISOString(),
    mode: i % 10 === 9 ? 'live' : 'test',
    entity_id: ['a', 'b', 'c'][i % 3]!,
    key_id: next() < 0.5 ? 'key_1' : 'key_2',
    status: next() < 0.2 ? 429 : 200,
  });
});

describe('usage.events over packed records', () => {
  let db: Db;
  beforeAll(async () => {
    db = await openShippedStore({ dataDir: mkdtempSync(join(tmpdir(), 'dispatch-usage-list-')) });
    // Two writers, each taking records in the order they were made, flushing runs of 1 to 40 at a time: their
    // packs' ranges overlap. A run is shuffled, as records answered out of order are.
    const byId = [...records].sort((x, y) => (x.id < y.id ? -1 : 1));
    const writers: UsageRecordTable[][] = [[], []];
    for (const record of byId) writers[next() < 0.5 ? 0 : 1]!.push(record);
    for (const own of writers) {
      for (let i = 0; i < own.length; ) {
        const run = own.slice(i, (i += 1 + Math.floor(next() * 40))).sort(() => next() - 0.5);
        await db.insertInto('usage_record_packs').values(packsOf(run)).execute();
      }
    }
  });
  afterAll(() => db?.destroy());

  /** Every page from the start, each no longer than `limit`, all but the last saying that more follow. */
  async function pages(scope: UsageScope, payload: UsageEventsPayload): Promise<string[]> {
    const ids: string[] = [];
    for (let startingAfter: string | undefined; ; ) {
      const page = await listRecords(db, scope, { ...payload, ...(startingAfter ? { startingAfter } : {}) });
      expect(page.items.length).toBeLessThanOrEqual(payload.limit!);
      ids.push(...page.items.map((r) => r.id));
      if (!page.hasMore) return ids;
      expect(page.items).toHaveLength(payload.limit!);
      startingAfter = page.items.at(-1)!.id;
    }
  }

  const expected = (keep: (r: UsageRecordTable) => boolean) =>
    records.filter(keep).map((r) => r.id).sort().reverse();

  it.each([1, 7, 100, 1000])('pages a partition %i at a time', async (limit) => {
    const ids = await pages({ mode: 'test', entities: ['a'], filter: {} }, { limit });
    expect(ids).toEqual(expected((r) => r.mode === 'test' && r.entity_id === 'a'));
  });

  it('takes a cursor that is no id as the text it is, bounding no pack by its time', async () => {
    const page = await listRecords(db, { mode: 'test', entities: ['b'], filter: {} }, { limit: 1000, startingAfter: 'use_zz' });
    expect(page.items.map((r) => r.id)).toEqual(expected((r) => r.mode === 'test' && r.entity_id === 'b'));
  });

  it('pages several entities with a filter by key and status', async () => {
    const scope: UsageScope = { mode: 'test', entities: ['a', 'c'], filter: { key: ['key_2'], status: [429] } };
    expect(await pages(scope, { limit: 5 })).toEqual(expected((r) => r.mode === 'test' && r.entity_id !== 'b' && r.key_id === 'key_2' && r.status === 429));
  });

  it('pages a range of time, its start taken and its end not', async () => {
    const [from, to] = [new Date(START + 123_456).toISOString(), new Date(START + 345_678).toISOString()];
    const inRange = (r: UsageRecordTable) => r.at >= from && r.at < to;
    expect(await pages({ mode: 'test', entities: '*', filter: {} }, { limit: 9, from, to })).toEqual(expected((r) => r.mode === 'test' && inRange(r)));
    expect(await pages({ mode: 'live', entities: ['b'], filter: {} }, { limit: 4, from, to })).toEqual(expected((r) => r.mode === 'live' && r.entity_id === 'b' && inRange(r)));
  });
});
