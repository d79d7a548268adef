/**
 * `usage.summary`: calls, errors, replays, units, cost and latency percentiles over a time range, grouped
 * and filtered, read from the minute rollups only (never the raw records), so its cost follows the number
 * of minutes and groups, not of calls. Costs are added up in nano-units and written as exact decimals;
 * latency percentiles come from the summed histogram buckets. Ingested meters are added up by type.
 */
import { sql, type RawBuilder } from 'kysely';
import type { UsageGroup, UsageMeter, UsageSummaryPayload, UsageSummaryResult, UsageTotals } from '../../generated/server/types.js';
import { ApiError } from '../runtime/errors.js';
import { parseInstant } from '../store/instant.js';
import type { Db } from '../store/schema.js';
import { nanosToDecimal } from './cost.js';
import { minuteOf } from './minute.js';
import { LATENCY_COLUMNS, quantile } from './latency.js';
import { scopeCondition, type UsageScope } from './scope.js';

type GroupField = NonNullable<UsageSummaryPayload['groupBy']>[number];
type TimeBucket = 'minute' | 'hour' | 'day';

/** The most groups one summary answers: beyond, a coarser question is needed. */
export const MAX_GROUPS = 10_000;
const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;
/** The longest range read at once: the rollups' default retention. */
const MAX_RANGE_MS = 400 * 24 * HOUR_MS;

/** Group fields and the column each reads. */
const COLUMNS: Record<Exclude<GroupField, TimeBucket>, string> = { face: 'face', action: 'action', entity: 'entity_id', key: 'key_id', status: 'status' };
/** The length of the `minute` text (`YYYY-MM-DDTHH:MM`) that names each time bucket. */
const BUCKET_LENGTH: Record<TimeBucket, number> = { minute: 16, hour: 13, day: 10 };
const BUCKET_SUFFIX: Record<TimeBucket, string> = { minute: ':00.000Z', hour: ':00:00.000Z', day: 'T00:00:00.000Z' };

/** The last minute a range may reach: dates past the year 9999 have no ISO form. */
const LAST_MINUTE_MS = Date.UTC(9999, 11, 31, 23, 59);

/** The range read, to whole minutes: from the minute `from` is in, to the end of the minute `to` is in. */
export function summaryRange(payload: { from?: string; to?: string }, now = Date.now()): { from: Date; to: Date } {
  const toMs = Math.min(payload.to !== undefined ? parseInstant(payload.to) : now, LAST_MINUTE_MS);
  const fromMs = Math.max(payload.from !== undefined ? parseInstant(payload.from) : toMs - HOUR_MS, 0);
  if (!(fromMs < toMs)) throw new ApiError('usage_range_invalid', '`from` must come before `to`.', { param: '/payload/from' });
  if (toMs - fromMs > MAX_RANGE_MS) throw new ApiError('usage_range_invalid', 'A range spans at most 400 days.', { param: '/payload/from' });
  return { from: new Date(Math.floor(fromMs / MINUTE_MS) * MINUTE_MS), to: new Date(Math.ceil(toMs / MINUTE_MS) * MINUTE_MS) };
}

const minuteText = (at: Date) => minuteOf(at.toISOString());

export async function summarize(db: Db, scope: UsageScope, payload: UsageSummaryPayload, currency: string): Promise<UsageSummaryResult> {
  const { from, to } = summaryRange(payload);
  const groupBy = payload.groupBy ?? [];
  const buckets = groupBy.filter((g): g is TimeBucket => g in BUCKET_LENGTH);
  if (buckets.length > 1) throw new ApiError('payload_invalid', 'Group by at most one of minute, hour and day.', { param: '/payload/groupBy' });
  const bucket = buckets[0];
  const fields = groupBy.filter((g): g is Exclude<GroupField, TimeBucket> => !(g in BUCKET_LENGTH));
  const selected: [name: string, expression: RawBuilder<unknown>][] = fields.map((f) => [f, sql`${sql.ref(COLUMNS[f])}`]);
  if (bucket) selected.push(['time', sql`substr(minute, 1, ${sql.lit(BUCKET_LENGTH[bucket])})`]);
  const range = sql<boolean>`minute >= ${minuteText(from)} and minute < ${minuteText(to)}`;
  const where = sql<boolean>`${scopeCondition(scope)} and ${range}`;
  const named = selected.map(([name, expression]) => expression.as(name));
  const groupList = selected.map(([, expression]) => expression);
  // Built as selects (not raw SQL) so that they are reads: on SQLite they run on the read connection and
  // never hold up the writer thread.
  const sums = ['calls', 'errors', 'replayed', ...LATENCY_COLUMNS].map((c) => sql`sum(${sql.ref(c)})`.as(c));
  let query = db.selectFrom('usage_rollups').select([...named, ...sums, sql<string>`cast(sum(cost_nanos) as text)`.as('nanos')]).where(where);
  if (groupList.length > 0) query = query.groupBy(groupList).orderBy(groupList);
  const rows = ((await query.limit(MAX_GROUPS + 1).execute()) as Record<string, unknown>[]).filter((row) => row.calls !== null);
  if (rows.length > MAX_GROUPS) {
    throw new ApiError('usage_query_too_large', `The summary would have more than ${MAX_GROUPS} groups.`, { param: '/payload/groupBy' });
  }
  const units = (await db
    .selectFrom('usage_unit_rollups')
    .select([...named, 'unit', sql`sum(amount)`.as('amount')])
    .where(where)
    .groupBy([...groupList, sql`unit`])
    .execute()) as Record<string, unknown>[];

  const keyOf = (row: Record<string, unknown>) => selected.map(([name]) => String(row[name])).join('\u0000');
  const unitsByGroup = new Map<string, Record<string, number>>();
  for (const row of units) {
    const key = keyOf(row);
    const found = unitsByGroup.get(key) ?? {};
    found[row.unit as string] = Number(row.amount);
    unitsByGroup.set(key, found);
  }

  const groups: UsageGroup[] = [];
  const total = emptyTally();
  for (const row of rows) {
    const tally: Tally = {
      calls: Number(row.calls),
      errors: Number(row.errors),
      replayed: Number(row.replayed),
      nanos: BigInt(row.nanos as string),
      latency: LATENCY_COLUMNS.map((c) => Number(row[c])),
      units: unitsByGroup.get(keyOf(row)) ?? {},
    };
    addTally(total, tally);
    const named: Record<string, unknown> = {};
    for (const field of fields) named[field] = field === 'status' ? Number(row[field]) : row[field];
    if (bucket) named.time = `${row.time as string}${BUCKET_SUFFIX[bucket]}`;
    groups.push({ ...named, ...totalsOf(tally) });
  }

  return {
    from: from.toISOString(),
    to: to.toISOString(),
    currency,
    groups,
    totals: totalsOf(total),
    meters: await meters(db, scope, fields, bucket, range),
  };
}

/** Ingested events by type, and by entity and time bucket when the summary is grouped by them. */
async function meters(db: Db, scope: UsageScope, fields: readonly string[], bucket: TimeBucket | undefined, range: RawBuilder<boolean>): Promise<UsageMeter[]> {
  const selected: [string, RawBuilder<unknown>][] = [['type', sql`type`]];
  if (fields.includes('entity')) selected.push(['entity', sql`entity_id`]);
  if (bucket) selected.push(['time', sql`substr(minute, 1, ${sql.lit(BUCKET_LENGTH[bucket])})`]);
  const list = selected.map(([, e]) => e);
  const rows = (await db
    .selectFrom('usage_meter_rollups')
    .select([...selected.map(([n, e]) => e.as(n)), sql`sum(events)`.as('events'), sql`sum(value)`.as('value')])
    .where(sql<boolean>`${scopeCondition(scope, { calls: false })} and ${range}`)
    .groupBy(list)
    .orderBy(list)
    .limit(MAX_GROUPS)
    .execute()) as Record<string, unknown>[];
  return rows.map((row) => ({
    type: row.type as string,
    ...(row.entity !== undefined ? { entity: row.entity as string } : {}),
    ...(bucket ? { time: `${row.time as string}${BUCKET_SUFFIX[bucket]}` } : {}),
    events: Number(row.events),
    value: Number(row.value),
  }));
}

interface Tally {
  calls: number;
  errors: number;
  replayed: number;
  nanos: bigint;
  latency: number[];
  units: Record<string, number>;
}

const emptyTally = (): Tally => ({ calls: 0, errors: 0, replayed: 0, nanos: 0n, latency: LATENCY_COLUMNS.map(() => 0), units: {} });

function addTally(into: Tally, tally: Tally): void {
  into.calls += tally.calls;
  into.errors += tally.errors;
  into.replayed += tally.replayed;
  into.nanos += tally.nanos;
  tally.latency.forEach((n, i) => (into.latency[i]! += n));
  for (const [unit, amount] of Object.entries(tally.units)) into.units[unit] = (into.units[unit] ?? 0) + amount;
}

function totalsOf(tally: Tally): UsageTotals {
  return {
    calls: tally.calls,
    errors: tally.errors,
    replayed: tally.replayed,
    units: tally.units,
    cost: nanosToDecimal(tally.nanos),
    latencyMs: { p50: quantile(tally.latency, 0.5), p99: quantile(tally.latency, 0.99) },
  };
}
