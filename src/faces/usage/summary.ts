/**
 * `usage.summary`: calls, errors, replays, units, cost and latency percentiles over a time range, grouped
 * and filtered, read from the rollups only (never the raw records): whole days from day rollups, whole hours
 * from hour rollups, the minutes at the ends from minute rollups (segments.ts), so its cost follows the
 * number of periods and groups, not of calls. Costs are added up in nano-units and written as exact decimals,
 * units and meter values as exact decimals too (store/exact-decimal.ts); latency percentiles come from the summed
 * histogram buckets. Ingested meters are added up by type. The answer is in the newest version's shape (sums
 * as decimal strings); the face's handler writes them as numbers for older versions (versions.ts).
 */
import { sql, type RawBuilder } from 'kysely';
import type { UsageGroup, UsageMeter, UsageSummaryPayload, UsageSummaryResult, UsageTotals } from '../../../generated/server/types.js';
import { ApiError } from '../../core/errors.js';
import { addDecimals, decimalSum, decimalText } from '../../store/exact-decimal.js';
import { parseInstant } from '../../store/instant.js';
import type { Db } from '../../store/schema.js';
import { nanosToDecimal } from './cost.js';
import { LATENCY_COLUMNS, quantile } from './latency.js';
import { scopeCondition, type UsageScope } from './scope.js';
import { PERIOD_LENGTH, periodOf, type Grain } from '../../store/periods.js';
import { segments, type Segment } from './segments.js';

type GroupField = NonNullable<UsageSummaryPayload['groupBy']>[number];
/** A time bucket of `groupBy` is a rollup grain. */
type TimeBucket = Grain;
type GroupFieldName = Exclude<GroupField, TimeBucket>;

/** The most groups one summary answers: beyond, a coarser question is needed. */
export const MAX_GROUPS = 10_000;
const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;
/** The longest range read at once: the rollups' default retention. */
const MAX_RANGE_MS = 400 * 24 * HOUR_MS;

/** Group fields and the column each reads. */
const COLUMNS: Record<Exclude<GroupField, TimeBucket>, string> = { face: 'face', action: 'action', entity: 'entity_id', key: 'key_id', status: 'status' };
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

const minuteText = (at: Date) => periodOf(at.toISOString(), 'minute');

export async function summarize(db: Db, scope: UsageScope, payload: UsageSummaryPayload, currency: string): Promise<UsageSummaryResult> {
  const { from, to } = summaryRange(payload);
  const groupBy = payload.groupBy ?? [];
  const buckets = groupBy.filter((g): g is TimeBucket => g in PERIOD_LENGTH);
  if (buckets.length > 1) throw new ApiError('payload_invalid', 'Group by at most one of minute, hour and day.', { param: '/payload/groupBy' });
  const bucket = buckets[0];
  const fields = groupBy.filter((g): g is Exclude<GroupField, TimeBucket> => !(g in PERIOD_LENGTH));

  // Each segment's groups, added up by group: a day's rows and the minutes beside it land in one group.
  const groups = new Map<string, { named: Record<string, unknown>; tally: Tally }>();
  for (const segment of segments(from.getTime(), to.getTime(), bucket ?? 'day')) {
    for (const row of await readSegment(db, scope, segment, fields, bucket)) {
      const named: Record<string, unknown> = {};
      for (const field of fields) named[field] = field === 'status' ? Number(row[field]) : row[field];
      if (bucket) named.time = `${row.time as string}${BUCKET_SUFFIX[bucket]}`;
      const key = JSON.stringify(Object.values(named));
      const found = groups.get(key);
      if (found) addTally(found.tally, row.tally);
      else groups.set(key, { named, tally: row.tally });
      if (groups.size > MAX_GROUPS) {
        throw new ApiError('usage_query_too_large', `The summary would have more than ${MAX_GROUPS} groups.`, { param: '/payload/groupBy' });
      }
    }
  }
  const total = emptyTally();
  const ordered = [...groups.values()].sort((a, b) => compareNamed(a.named, b.named, [...fields, ...(bucket ? ['time'] : [])]));
  for (const { tally } of ordered) addTally(total, tally);
  return {
    from: from.toISOString(),
    to: to.toISOString(),
    currency,
    groups: ordered.map(({ named, tally }) => ({ ...named, ...totalsOf(tally) }) as UsageGroup),
    totals: totalsOf(total),
    meters: await meters(db, scope, fields, bucket, sql<boolean>`minute >= ${minuteText(from)} and minute < ${minuteText(to)}`),
  };
}

/** Groups in the order of their fields: numbers as numbers, text as text (times sort as text). */
function compareNamed(a: Record<string, unknown>, b: Record<string, unknown>, fields: readonly string[]): number {
  for (const field of fields) {
    const [x, y] = [a[field], b[field]];
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return String(x) < String(y) ? -1 : 1;
  }
  return 0;
}

/** The rollups of one segment (calls and units), grouped; each row with its tally. */
async function readSegment(
  db: Db,
  scope: UsageScope,
  segment: Segment,
  fields: readonly GroupFieldName[],
  bucket: TimeBucket | undefined,
): Promise<(Record<string, unknown> & { tally: Tally })[]> {
  const minute = segment.grain === 'minute';
  const period = minute ? sql.ref('minute') : sql.ref('period');
  const selected: [name: string, expression: RawBuilder<unknown>][] = fields.map((f) => [f, sql`${sql.ref(COLUMNS[f])}`]);
  if (bucket) selected.push(['time', sql`substr(${period}, 1, ${sql.lit(PERIOD_LENGTH[bucket])})`]);
  const grain = minute ? sql<boolean>`1 = 1` : sql<boolean>`grain = ${segment.grain}`;
  const where = sql<boolean>`${scopeCondition(scope)} and ${grain} and ${period} >= ${segment.from} and ${period} < ${segment.to}`;
  const named = selected.map(([name, expression]) => expression.as(name));
  const groupList = selected.map(([, expression]) => expression);
  // Built as selects (not raw SQL) so that they are reads: on SQLite they run on the read connection and
  // never hold up the writer thread.
  const sums = ['calls', 'errors', 'replayed', ...LATENCY_COLUMNS].map((c) => sql`sum(${sql.ref(c)})`.as(c));
  let query = db
    .selectFrom(minute ? 'usage_rollups' : 'usage_rollups_coarse')
    .select([...named, ...sums, sql<string>`cast(sum(cost_nanos) as text)`.as('nanos')])
    .where(where);
  if (groupList.length > 0) query = query.groupBy(groupList);
  const rows = ((await query.limit(MAX_GROUPS + 1).execute()) as Record<string, unknown>[]).filter((row) => row.calls !== null);
  if (rows.length > MAX_GROUPS) {
    throw new ApiError('usage_query_too_large', `The summary would have more than ${MAX_GROUPS} groups.`, { param: '/payload/groupBy' });
  }
  const units = (await db
    .selectFrom(minute ? 'usage_unit_rollups' : 'usage_unit_rollups_coarse')
    .select([...named, 'unit', decimalSum(db, sql.ref('amount')).as('amount')])
    .where(where)
    .groupBy([...groupList, sql`unit`])
    .execute()) as Record<string, unknown>[];
  const keyOf = (row: Record<string, unknown>) => selected.map(([name]) => String(row[name])).join('\u0000');
  const unitsByGroup = new Map<string, Record<string, string>>();
  for (const row of units) {
    const found = unitsByGroup.get(keyOf(row)) ?? {};
    found[row.unit as string] = decimalText(row.amount as string);
    unitsByGroup.set(keyOf(row), found);
  }
  return rows.map((row) => ({
    ...row,
    tally: {
      calls: Number(row.calls),
      errors: Number(row.errors),
      replayed: Number(row.replayed),
      nanos: BigInt(row.nanos as string),
      latency: LATENCY_COLUMNS.map((c) => Number(row[c])),
      units: unitsByGroup.get(keyOf(row)) ?? {},
    } satisfies Tally,
  }));
}

/** Ingested events by type, and by entity and time bucket when the summary is grouped by them. */
async function meters(db: Db, scope: UsageScope, fields: readonly string[], bucket: TimeBucket | undefined, range: RawBuilder<boolean>): Promise<UsageMeter[]> {
  const selected: [string, RawBuilder<unknown>][] = [['type', sql`type`]];
  if (fields.includes('entity')) selected.push(['entity', sql`entity_id`]);
  if (bucket) selected.push(['time', sql`substr(minute, 1, ${sql.lit(PERIOD_LENGTH[bucket])})`]);
  const list = selected.map(([, e]) => e);
  const rows = (await db
    .selectFrom('usage_meter_rollups')
    .select([...selected.map(([n, e]) => e.as(n)), sql`sum(events)`.as('events'), decimalSum(db, sql.ref('value')).as('value')])
    .where(sql<boolean>`${scopeCondition(scope, { calls: false })} and ${range}`)
    .groupBy(list)
    .orderBy(sql.join(list))
    .limit(MAX_GROUPS)
    .execute()) as Record<string, unknown>[];
  return rows.map((row) => ({
    type: row.type as string,
    ...(row.entity !== undefined ? { entity: row.entity as string } : {}),
    ...(bucket ? { time: `${row.time as string}${BUCKET_SUFFIX[bucket]}` } : {}),
    events: Number(row.events),
    value: decimalText(row.value as string),
  }));
}

interface Tally {
  calls: number;
  errors: number;
  replayed: number;
  nanos: bigint;
  latency: number[];
  /** Exact decimals. */
  units: Record<string, string>;
}

const emptyTally = (): Tally => ({ calls: 0, errors: 0, replayed: 0, nanos: 0n, latency: LATENCY_COLUMNS.map(() => 0), units: {} });

function addTally(into: Tally, tally: Tally): void {
  into.calls += tally.calls;
  into.errors += tally.errors;
  into.replayed += tally.replayed;
  into.nanos += tally.nanos;
  tally.latency.forEach((n, i) => (into.latency[i]! += n));
  for (const [unit, amount] of Object.entries(tally.units)) into.units[unit] = addDecimals(into.units[unit] ?? '0', amount);
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
