/**
 * What each flush adds to the rollups that summaries read, at three grains: minutes (`usage_rollups`,
 * `usage_unit_rollups`) and hours and days (`usage_rollups_coarse`, `usage_unit_rollups_coarse`, told apart
 * by `grain`). A summary over a month then reads about thirty day rows per group instead of 43 200 minute
 * rows. Each addition is an upsert that adds counts, costs, latency buckets and units to the row of its
 * period and key; one statement per table per chunk of rows (on PostgreSQL, one for every table:
 * postgres-flush.ts), the rows of a statement in key order, so that processes upserting the same rows lock
 * them in the same order and never deadlock. Costs are added up as integer nano-units and units as exact
 * decimals (store/exact-decimal.ts), or as numbers while they are whole and their sum is exact: never rounded.
 */
import { sql, type CompiledQuery } from 'kysely';
import type { Db, UsageRecordTable } from '../../store/schema.js';
import { valueRowStatements } from '../../store/bulk-insert.js';
import { addDecimals, decimalAdd, decimalText } from '../../store/exact-decimal.js';
import { LATENCY_COLUMNS, latencyBucket } from './latency.js';
import { PERIOD_LENGTH, periodOf, type Grain } from '../../store/periods.js';

export interface RecordWithCost {
  row: UsageRecordTable;
  costNanos: bigint;
  /** The units the row holds as JSON, as reported. */
  units: Readonly<Record<string, number>>;
}

const CALL_KEY = ['mode', 'entity_id', 'key_id', 'face', 'action', 'status'] as const;
/** What a tally adds to each column of the call rollups it adds to, in the order of the columns. */
const ADDED_VALUES: Record<string, (t: Tally) => unknown> = {
  calls: (t) => t.calls,
  errors: (t) => t.errors,
  replayed: (t) => t.replayed,
  cost_nanos: (t) => t.nanos.toString(),
  latency_ms_sum: (t) => t.latencyMsSum,
  ...Object.fromEntries(LATENCY_COLUMNS.map((column, i) => [column, (t: Tally) => t.latencies[i]])),
};
const ADDED = Object.keys(ADDED_VALUES);

export type RollupTable = 'usage_rollups' | 'usage_rollups_coarse' | 'usage_unit_rollups' | 'usage_unit_rollups_coarse';

/**
 * What a flush adds to one table: the columns that name a row and those added up, and its rows in key order,
 * each the values of those columns in that order.
 */
export interface RollupWrite {
  table: RollupTable;
  key: readonly string[];
  added: readonly string[];
  rows: unknown[][];
}

/** What `records` add to the rollups of every grain, table by table. */
export function rollupWrites(records: readonly RecordWithCost[]): RollupWrite[] {
  // Minutes from the records; hours from the minutes and days from the hours, which are far fewer.
  const minutes = minuteTallies(records);
  const hours = coarsen(minutes, 'hour');
  const days = coarsen(hours, 'day');
  return [
    { table: 'usage_rollups', rows: callRows(minutes, 'minute'), key: ['minute', ...CALL_KEY], added: ADDED },
    { table: 'usage_rollups_coarse', rows: [...callRows(hours, 'hour'), ...callRows(days, 'day')], key: ['grain', 'period', ...CALL_KEY], added: ADDED },
    { table: 'usage_unit_rollups', rows: unitRows(minutes, 'minute'), key: ['minute', ...CALL_KEY, 'unit'], added: ['amount'] },
    { table: 'usage_unit_rollups_coarse', rows: [...unitRows(hours, 'hour'), ...unitRows(days, 'day')], key: ['grain', 'period', ...CALL_KEY, 'unit'], added: ['amount'] },
  ];
}

/** The statements that add `records` to the rollups of every grain. */
export function rollupStatements(db: Db, records: readonly RecordWithCost[]): CompiledQuery[] {
  return rollupWrites(records).flatMap((write) => upserts(db, write));
}

/**
 * What the calls of one period and key add up to, kept by the text of the period and key (`keyOf`); the key's
 * columns are read off its first record.
 */
interface Tally {
  row: UsageRecordTable;
  period: string;
  calls: number;
  errors: number;
  replayed: number;
  nanos: bigint;
  latencyMsSum: number;
  /** Calls by latency bucket, in LATENCY_COLUMNS order. */
  latencies: number[];
  /**
   * Each unit's amount: a number while every amount added is a whole number and the sum is exact as one (the
   * usual case, and cheap), else exact decimal text.
   */
  units: Map<string, number | string>;
}

const newTally = (row: UsageRecordTable, period: string): Tally => ({
  row, period, calls: 0, errors: 0, replayed: 0, nanos: 0n, latencyMsSum: 0, latencies: LATENCY_COLUMNS.map(() => 0), units: new Map(),
});

/** A tally's key: its period first (coarsen cuts it), then the key's columns. */
const keyOf = (period: string, r: UsageRecordTable) => `${period}\u0000${CALL_KEY.map((column) => r[column]).join('\u0000')}`;

/**
 * Whether two records add to the rollup rows of the same key, in whichever period: CALL_KEY's columns, each named
 * rather than looped over, as this runs for every record (a loop measured up to 1 µs a record more).
 */
const sameKey = (a: UsageRecordTable, b: UsageRecordTable) =>
  a.key_id === b.key_id && a.entity_id === b.entity_id && a.mode === b.mode && a.face === b.face && a.action === b.action && a.status === b.status;

const asText = (amount: number | string) => (typeof amount === 'string' ? amount : decimalText(amount));

/** `amount` added to a unit's `sum` so far, exactly. */
function addAmount(sum: number | string | undefined, amount: number | string): number | string {
  if (sum === undefined) return amount;
  // A float sum is exact only while both amounts and the sum are whole numbers below 2^53.
  if (typeof sum === 'number' && typeof amount === 'number' && Number.isSafeInteger(sum) && Number.isSafeInteger(amount) && Number.isSafeInteger(sum + amount)) return sum + amount;
  return addDecimals(asText(sum), asText(amount));
}

/** The records added up per minute and key, by key. */
function minuteTallies(records: readonly RecordWithCost[]): Map<string, Tally> {
  const byKey = new Map<string, Tally>();
  let tally: Tally | undefined;
  for (const { row, costNanos, units } of records) {
    // A part's records come partition by partition (flush-parts.ts): most add to the tally the record before
    // did, found without making its key, which would be most of what adding a record allocates.
    if (!tally || !sameKey(tally.row, row) || tally.period.length !== PERIOD_LENGTH.minute || !row.at.startsWith(tally.period)) {
      const minute = periodOf(row.at, 'minute');
      const key = keyOf(minute, row);
      tally = byKey.get(key);
      if (!tally) byKey.set(key, (tally = newTally(row, minute)));
    }
    tally.calls += 1;
    if (row.status >= 400) tally.errors += 1;
    tally.replayed += row.replayed;
    tally.nanos += costNanos;
    tally.latencyMsSum += row.latency_ms;
    tally.latencies[latencyBucket(row.latency_ms)]! += 1;
    for (const unit in units) tally.units.set(unit, addAmount(tally.units.get(unit), units[unit]!));
  }
  return byKey;
}

/** Finer tallies added up into the periods of `grain`: a key is its finer key with the period cut to the coarser length. */
function coarsen(finer: Map<string, Tally>, grain: 'hour' | 'day'): Map<string, Tally> {
  const length = PERIOD_LENGTH[grain];
  const byKey = new Map<string, Tally>();
  for (const [finerKey, added] of finer) {
    const key = finerKey.slice(0, length) + finerKey.slice(finerKey.indexOf('\u0000'));
    let tally = byKey.get(key);
    if (!tally) byKey.set(key, (tally = newTally(added.row, added.period.slice(0, length))));
    tally.calls += added.calls;
    tally.errors += added.errors;
    tally.replayed += added.replayed;
    tally.nanos += added.nanos;
    tally.latencyMsSum += added.latencyMsSum;
    added.latencies.forEach((count, i) => (tally.latencies[i]! += count));
    for (const [unit, amount] of added.units) tally.units.set(unit, addAmount(tally.units.get(unit), amount));
  }
  return byKey;
}

/** Tallies in the order of their keys (and units, below, in the order of their names): processes upserting the same rows lock them in the same order. */
const inKeyOrder = (tallies: Map<string, Tally>): Tally[] => [...tallies.keys()].sort().map((key) => tallies.get(key)!);

/** The values that name a row's period: a minute, or the grain and its period. */
const periodValues = (grain: Grain, period: string): string[] => (grain === 'minute' ? [period] : [grain, period]);

/** The values that name a tally's key, after its period, in CALL_KEY order. */
const keyValues = ({ row }: Tally) => CALL_KEY.map((column) => row[column]);

/** The rollup rows of calls of `tallies`, at `grain`, in key order. */
function callRows(tallies: Map<string, Tally>, grain: Grain): unknown[][] {
  return inKeyOrder(tallies).map((t) => [...periodValues(grain, t.period), ...keyValues(t), ...ADDED.map((column) => ADDED_VALUES[column]!(t))]);
}

/** The rollup rows of units of `tallies`, at `grain`, in key and unit order, as exact decimals. */
function unitRows(tallies: Map<string, Tally>, grain: Grain): unknown[][] {
  return inKeyOrder(tallies).flatMap((t) => [...t.units.keys()].sort().map((unit) => [...periodValues(grain, t.period), ...keyValues(t), unit, asText(t.units.get(unit)!)]));
}

function upserts(db: Db, { table, rows, key, added }: RollupWrite): CompiledQuery[] {
  // Built only when its SQL is not yet known (valueRowStatements): the statements of a flush are its rows' values.
  return valueRowStatements(db, `${table}:upsert`, [...key, ...added], rows, (chunk) => {
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
