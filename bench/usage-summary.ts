/**
 * `usage.summary` over a month of one million records (bench/usage-seed.ts, cached by bench/usage-store.ts),
 * on SQLite and on PostgreSQL: three questions over the 30 days (no groupBy; by day; by face and status),
 * for a key that reads every entity and for the busiest entity alone. Each is asked through the face's
 * handler inside a call's transaction (src/store/transaction.ts), as a call over HTTP would ask it: one
 * cold run, then the median of several. Beside each, the rollup rows it reads, which is what its time follows.
 */
import { sql } from 'kysely';
import type { UsageSummaryPayload } from '../generated/server/types.js';
import { handlers as usage } from '../src/faces/usage/handlers.js';
import { shippedCatalogue } from '../src/server/shipped.js';
import type { Db } from '../src/store/schema.js';
import { CallTransaction } from '../src/store/transaction.js';
import { median } from './rounds.js';
import { entityName, SEED } from './usage-seed.js';
import { seededPostgres, seededSqlite, type SeededStore } from './usage-store.js';

const RUNS = Number(process.env.BENCH_SUMMARY_RUNS ?? 7);
const TARGET_MS = 50;

const QUESTIONS: [string, UsageSummaryPayload][] = [
  ['no groupBy', {}],
  ['groupBy day', { groupBy: ['day'] }],
  ['groupBy face+status', { groupBy: ['face', 'status'] }],
];
/** [name, the key's entities, the call's entity, filter.entity]. */
const SCOPES: [string, '*' | string[], string, UsageSummaryPayload['filter']][] = [
  ['all entities', '*', entityName(0), { entity: '*' }],
  ['busiest entity', [entityName(0)], entityName(0), undefined],
];

type Context = Parameters<typeof usage.summary>[1];

export interface SummaryRow {
  store: string;
  scope: string;
  question: string;
  coldMs: number;
  medianMs: number;
  calls: number;
  groups: number;
  rollupRows: number;
  unitRollupRows: number;
  met: boolean;
}

export interface SummaryResult {
  stores: { label: string; cached: boolean; seedSeconds: number; seededAt: string; records: number; rollups: number; unitRollups: number; from: string; to: string }[];
  rows: SummaryRow[];
}

export async function usageSummary(): Promise<SummaryResult> {
  const result: SummaryResult = { stores: [], rows: [] };
  for (const open of [seededSqlite, seededPostgres]) {
    const store = await open();
    try {
      const [rollups, unitRollups] = [await countRows(store.db, 'usage_rollups'), await countRows(store.db, 'usage_unit_rollups')];
      result.stores.push({ label: store.label, cached: store.cached, ...store.meta, rollups, unitRollups });
      console.log(
        `\nusage.summary on ${store.label}: ${store.meta.records.toLocaleString('en')} records over ${SEED.days} days in ${rollups.toLocaleString('en')} minute rollups ` +
          `(+ ${unitRollups.toLocaleString('en')} unit rollups); ${store.cached ? 'seeded by an earlier run, in' : 'seeded now, in'} ${store.meta.seedSeconds.toFixed(1)} s. ` +
          `Through the handler in a call's transaction; cold run, then median of ${RUNS}.`,
      );
      const rows = await timeQuestions(store);
      result.rows.push(...rows);
      console.table(
        Object.fromEntries(
          rows.map((r) => [
            `${r.scope}, ${r.question}`,
            { 'median ms': r.medianMs.toFixed(1), 'cold ms': r.coldMs.toFixed(1), 'minute rollups in scope': r.rollupRows, 'unit minute rollups': r.unitRollupRows, groups: r.groups, calls: r.calls, [`≤ ${TARGET_MS} ms`]: r.met ? 'yes' : 'no' },
          ]),
        ),
      );
    } finally {
      await store.db.destroy();
    }
  }
  return result;
}

async function timeQuestions(store: SeededStore): Promise<SummaryRow[]> {
  const rows: SummaryRow[] = [];
  const catalogue = shippedCatalogue();
  const range = { from: store.meta.from, to: store.meta.to };
  for (const [scope, entities, entityId, filter] of SCOPES) {
    const read = await readRows(store.db, entities, range);
    for (const [question, payload] of QUESTIONS) {
      const ask = async () => {
        const tx = new CallTransaction(store.db);
        // The handler prices in the served catalogue's currency.
        const ctx = { db: tx.db, mode: SEED.mode, entityId, key: { entities }, catalogue } as unknown as Context;
        const started = performance.now();
        const answer = await usage.summary({ ...range, ...payload, ...(filter ? { filter } : {}) }, ctx);
        await tx.commit();
        return { ms: performance.now() - started, answer };
      };
      const cold = await ask();
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) times.push((await ask()).ms);
      const medianMs = median(times);
      rows.push({
        store: store.label, scope, question, coldMs: cold.ms, medianMs, calls: cold.answer.totals.calls, groups: cold.answer.groups.length, ...read, met: medianMs <= TARGET_MS,
      });
    }
  }
  return rows;
}

async function countRows(db: Db, table: 'usage_rollups' | 'usage_unit_rollups'): Promise<number> {
  return Number((await sql<{ n: string | number }>`select count(*) as n from ${sql.table(table)}`.execute(db)).rows[0]!.n);
}

/** The rollup rows a summary of `entities` over the range reads (every question reads the same rows). */
async function readRows(db: Db, entities: '*' | string[], range: { from: string; to: string }) {
  const count = async (table: 'usage_rollups' | 'usage_unit_rollups') => {
    const scope = entities === '*' ? sql`true` : sql`entity_id in (${sql.join(entities)})`;
    const query = sql<{ n: string | number }>`select count(*) as n from ${sql.table(table)}
      where mode = ${SEED.mode} and ${scope} and minute >= ${range.from.slice(0, 16)} and minute < ${range.to.slice(0, 16)}`;
    return Number((await query.execute(db)).rows[0]!.n);
  };
  return { rollupRows: await count('usage_rollups'), unitRollupRows: await count('usage_unit_rollups') };
}
