/**
 * Summaries read minute, hour and day rollups; whatever the range and grouping, they must answer exactly
 * what adding up the raw records gives. Records spread over three days are written through the recorder
 * (so every grain is kept as the server keeps it), then random ranges and groupings are checked against a
 * reference computed from the records themselves, on SQLite and on PostgreSQL.
 */
import fc from 'fast-check';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openShippedStore } from '../../src/server/shipped.js';
import type { Db, UsageRecordTable } from '../../src/store/schema.js';
import { newId } from '../../src/store/secrets.js';
import { nanosToDecimal } from '../../src/faces/usage/cost.js';
import { UsageRecorder } from '../../src/faces/usage/recorder.js';
import { summarize } from '../../src/faces/usage/summary.js';
import { createTestDatabase } from '../helpers/postgres.js';

const START = Date.parse('2026-11-20T21:17:00Z');
const SPAN_MIN = 3 * 24 * 60;
const FACES = ['ai', 'auth', 'keys'];
const STATUSES = [200, 400, 404];

interface Sample {
  row: UsageRecordTable;
  nanos: bigint;
}

/** Deterministic records: minute `i * 7 % SPAN`, a face, a status and a cost of their own. */
function samples(count: number): Sample[] {
  return Array.from({ length: count }, (_, i) => {
    const at = new Date(START + ((i * 7919) % SPAN_MIN) * 60_000 + (i % 60) * 1000).toISOString();
    const status = STATUSES[i % 3]!;
    const nanos = status === 200 ? BigInt(500_000 + i) : 0n;
    return {
      nanos,
      row: {
        id: newId('use'),
        request_id: newId('req'),
        at,
        key_id: `key_${i % 4}`,
        mode: 'test',
        entity_id: 'acme',
        face: FACES[i % FACES.length]!,
        action: 'run',
        api_version: '2026-09-01',
        status,
        error_code: status === 200 ? null : 'x',
        latency_ms: (i % 9) * 3,
        units: status === 200 ? JSON.stringify({ outputTokens: i % 5 }) : '{}',
        cost: nanosToDecimal(nanos),
        currency: 'usd',
        replayed: 0,
      },
    };
  });
}

const SCOPE = { mode: 'test' as const, entities: ['acme'], filter: {} };

describe.each([
  { name: 'SQLite', postgres: false },
  { name: 'PostgreSQL', postgres: true },
])('summaries over minute, hour and day rollups on $name', ({ postgres }) => {
  let db: Db;
  let drop: (() => Promise<void>) | undefined;
  const data = samples(600);
  beforeAll(async () => {
    const database = postgres ? await createTestDatabase() : undefined;
    drop = database?.drop;
    db = await openShippedStore({ dataDir: mkdtempSync(join(tmpdir(), 'dispatch-tiers-')), ...(database ? { databaseUrl: database.url } : {}) });
    const recorder = new UsageRecorder(db, { flushMs: 60_000, flushAt: 10_000 });
    // In a few flushes, as a server would write them.
    for (const [i, { row, nanos }] of data.entries()) {
      recorder.record(row, nanos);
      if (i % 200 === 199) await recorder.flush();
    }
    await recorder.close();
  });
  afterAll(async () => {
    await db?.destroy();
    await drop?.();
  });

  it('answers exactly what the records add up to, for any range and grouping', async () => {
    const groupings = [[], ['face'], ['hour'], ['day', 'status'], ['face', 'key']] as const;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: SPAN_MIN }), fc.integer({ min: 1, max: SPAN_MIN }), fc.constantFrom(...groupings), async (offset, length, groupBy) => {
        const from = START + offset * 60_000;
        const to = Math.min(from + length * 60_000, START + SPAN_MIN * 60_000 + 60_000);
        fc.pre(from < to);
        const result = await summarize(db, SCOPE, { from: new Date(from).toISOString(), to: new Date(to).toISOString(), groupBy: [...groupBy] }, 'usd');
        const inRange = data.filter(({ row }) => Date.parse(row.at.slice(0, 16) + ':00Z') >= from && Date.parse(row.at.slice(0, 16) + ':00Z') < to);
        expect(result.totals.calls).toBe(inRange.length);
        expect(result.totals.errors).toBe(inRange.filter(({ row }) => row.status >= 400).length);
        expect(result.totals.cost).toBe(nanosToDecimal(inRange.reduce((n, { nanos }) => n + nanos, 0n)));
        // Units are added up as exact decimals, written as decimal strings.
        expect(result.totals.units.outputTokens ?? '0').toBe(String(inRange.reduce((n, { row }) => n + ((JSON.parse(row.units) as { outputTokens?: number }).outputTokens ?? 0), 0)));
        // Each group holds exactly its records.
        const keyOf = (row: UsageRecordTable) =>
          groupBy.map((g) => (g === 'face' ? row.face : g === 'status' ? row.status : g === 'key' ? row.key_id : g === 'hour' ? `${row.at.slice(0, 13)}:00:00.000Z` : `${row.at.slice(0, 10)}T00:00:00.000Z`)).join('|');
        const expected = new Map<string, number>();
        for (const { row } of inRange) expected.set(keyOf(row), (expected.get(keyOf(row)) ?? 0) + 1);
        const fieldOf = (g: string) => (g === 'hour' || g === 'day' ? 'time' : g);
        const actual = new Map(result.groups.map((group) => [groupBy.map((g) => (group as unknown as Record<string, unknown>)[fieldOf(g)]).join('|'), group.calls]));
        expect(actual).toEqual(expected);
      }),
      { numRuns: 25 },
    );
  });
});
