/**
 * What each flush adds to the rollups that summaries read, at three grains: minutes (`usage_rollups`,
 * `usage_unit_rollups`) and hours and days (`usage_rollups_coarse`, `usage_unit_rollups_coarse`, told apart
 * by `grain`). A summary over a month then reads about thirty day rows per group instead of 43 200 minute
 * rows. Each addition is an upsert that adds counts, costs, latency buckets and units to the row of its
 * period and key; one statement per table per chunk of rows (on PostgreSQL, one for every table:
 * postgres-flush.ts), the rows of a statement in key order, so that processes upserting the same rows lock
 * them in the same order and never deadlock. Costs are added up as integer nano-units and units as exact
 * decimals (store/exact-decimal.ts), never as floats.
 */
import { sql, type CompiledQuery } from 'kysely';
import type { Db, UsageRecordTable } from '../../store/schema.js';
import { multiRowStatements } from '../../store/bulk-insert.js';
import { addDecimals, decimalAdd, decimalText } from '../../store/exact-decimal.js';
import { LATENCY_COLUMNS, latencyBucket } from './latency.js';
import { PERIOD_LENGTH, periodOf } from '../../store/periods.js';

export interface RecordWithCost {
  row: UsageRecordTable;
  costNanos: bigint;
  /** The units the row holds as JSON, as reported. */
  units: Readonly<Record<string, number>>;
}

const CALL_KEY = ['mode', 'entity_id', 'key_id', 'face', 'action', 'status'] as const;
const ADDED = ['calls', 'errors', 'replayed', 'cost_nanos', 'latency_ms_sum', ...LATENCY_COLUMNS] as const;

export type RollupTable = 'usage_rollups' | 'usage_rollups_coarse' | 'usage_unit_rollups' | 'usage_unit_rollups_coarse';

/** What a flush adds to one table: its rows in key order, the columns that name a row and those added up. */
export interface RollupWrite {
  table: RollupTable;
  rows: Rollup[];
  key: readonly string[];
  added: readonly string[];
}

/** What `records` add to the rollups of every grain, table by table. */
export function rollupWrites(records: readonly RecordWithCost[]): RollupWrite[] {
  // Minutes from the records; hours from the minutes and days from the hours, which are far fewer.
  const minutes = callRollups(records);
  const hours = coarsen(minutes, 'hour', ADDED);
  const days = coarsen(hours, 'day', ADDED);
  const unitMinutes = unitRollups(records);
  const unitHours = coarsen(unitMinutes, 'hour', ['amount']);
  const unitDays = coarsen(unitHours, 'day', ['amount']);
  return [
    { table: 'usage_rollups', rows: inKeyOrder(minutes), key: ['minute', ...CALL_KEY], added: ADDED },
    { table: 'usage_rollups_coarse', rows: [...inKeyOrder(hours), ...inKeyOrder(days)], key: ['grain', 'period', ...CALL_KEY], added: ADDED },
    { table: 'usage_unit_rollups', rows: inKeyOrder(unitMinutes), key: ['minute', ...CALL_KEY, 'unit'], added: ['amount'] },
    { table: 'usage_unit_rollups_coarse', rows: [...inKeyOrder(unitHours), ...inKeyOrder(unitDays)], key: ['grain', 'period', ...CALL_KEY, 'unit'], added: ['amount'] },
  ];
}

/** The statements that add `records` to the rollups of every grain. */
export function rollupStatements(db: Db, records: readonly RecordWithCost[]): CompiledQuery[] {
  return rollupWrites(records).flatMap((write) => upserts(db, write));
}

export type Rollup = Record<string, unknown>;

/** The records added up per minute and key: one row per key, as an upsert may touch a row once. */
function callRollups(records: readonly RecordWithCost[]): Map<string, Rollup> {
  const byKey = new Map<string, Rollup & { nanos: bigint }>();
  for (const { row: r, costNanos } of records) {
    const minute = periodOf(r.at, 'minute');
    const key = `${minute}\u0000${r.mode}\u0000${r.entity_id}\u0000${r.key_id}\u0000${r.face}\u0000${r.action}\u0000${r.status}`;
    let tally = byKey.get(key);
    if (!tally) {
      tally = { minute, mode: r.mode, entity_id: r.entity_id, key_id: r.key_id, face: r.face, action: r.action, status: r.status, calls: 0, errors: 0, replayed: 0, nanos: 0n, latency_ms_sum: 0 };
      for (const column of LATENCY_COLUMNS) tally[column] = 0;
      byKey.set(key, tally);
    }
    tally.calls = (tally.calls as number) + 1;
    if (r.status >= 400) tally.errors = (tally.errors as number) + 1;
    tally.replayed = (tally.replayed as number) + r.replayed;
    tally.nanos += costNanos;
    tally.latency_ms_sum = (tally.latency_ms_sum as number) + r.latency_ms;
    const bucket = LATENCY_COLUMNS[latencyBucket(r.latency_ms)]!;
    tally[bucket] = (tally[bucket] as number) + 1;
  }
  for (const tally of byKey.values()) {
    tally.cost_nanos = tally.nanos.toString();
    delete (tally as Partial<typeof tally>).nanos;
  }
  return byKey;
}

/** The records' units added up per minute, key and unit, as exact decimals. */
function unitRollups(records: readonly RecordWithCost[]): Map<string, Rollup> {
  const byKey = new Map<string, Rollup & { amount: string }>();
  for (const { row: r, units } of records) {
    let minute: string | undefined;
    for (const unit in units) {
      const reported = units[unit]!;
      minute ??= periodOf(r.at, 'minute');
      const key = `${minute}\u0000${r.mode}\u0000${r.entity_id}\u0000${r.key_id}\u0000${r.face}\u0000${r.action}\u0000${r.status}\u0000${unit}`;
      const amount = decimalText(reported);
      const rollup = byKey.get(key);
      if (rollup) rollup.amount = addDecimals(rollup.amount, amount);
      else byKey.set(key, { minute, mode: r.mode, entity_id: r.entity_id, key_id: r.key_id, face: r.face, action: r.action, status: r.status, unit, amount });
    }
  }
  return byKey;
}

/** Columns added up other than as numbers: costs as integer nano-units, units as exact decimals. */
const ADD: Record<string, (a: string, b: string) => string> = {
  cost_nanos: (a, b) => (BigInt(a) + BigInt(b)).toString(),
  amount: addDecimals,
};

/**
 * Finer rollups added up into the periods of `grain`: the key of a row is its finer key with the period
 * cut to the coarser length (keys start with the period), and the `added` columns are summed.
 */
function coarsen(finer: Map<string, Rollup>, grain: 'hour' | 'day', added: readonly string[]): Map<string, Rollup> {
  const length = PERIOD_LENGTH[grain];
  const byKey = new Map<string, Rollup>();
  for (const [finerKey, row] of finer) {
    const cut = finerKey.indexOf('\u0000');
    const key = finerKey.slice(0, length) + finerKey.slice(cut);
    const found = byKey.get(key);
    if (!found) {
      const { minute, period, ...rest } = row;
      byKey.set(key, { ...rest, grain, period: ((period ?? minute) as string).slice(0, length) });
      continue;
    }
    for (const column of added) found[column] = ADD[column]?.(found[column] as string, row[column] as string) ?? (found[column] as number) + (row[column] as number);
  }
  return byKey;
}

/** Rows in the order of their keys: processes upserting the same rows lock them in the same order. */
function inKeyOrder<T>(byKey: Map<string, T>): T[] {
  return [...byKey.keys()].sort().map((key) => byKey.get(key)!);
}

function upserts(db: Db, { table, rows, key, added }: RollupWrite): CompiledQuery[] {
  // Built only when its SQL is not yet known (multiRowStatements): the statements of a flush are its rows' values.
  return multiRowStatements(db, `${table}:upsert`, rows, (chunk) => {
    const set = Object.fromEntries(
      added.map((c) => {
        const [mine, theirs] = [sql`${sql.table(table)}.${sql.ref(c)}`, sql`excluded.${sql.ref(c)}`];
        return [c, c === 'amount' ? decimalAdd(db, mine, theirs) : sql`${mine} + ${theirs}`];
      }),
    );
    return db
      .insertInto(table)
      .values(chunk as never)
      .onConflict((oc) => oc.columns(key as never).doUpdateSet(set as never));
  });
}
