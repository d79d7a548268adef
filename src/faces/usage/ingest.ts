/**
 * `usage.ingest`: the caller's own metered events (docs/contract.md § Usage). Each is answered on its own: `invalid` when
 * its time is outside the window (35 days back, 5 minutes ahead), `duplicate` when its id was taken before
 * (by an earlier request, or earlier in this one), else `accepted`. The primary key of (mode, entity, id)
 * decides duplicates, so two processes ingesting the same id at once count it once. Accepted events are
 * added to the minute rollups of their type in the same transaction as the events themselves (the call's),
 * so a summary never counts an event that was not kept, or misses one that was.
 *
 * A value is kept as an exact decimal (docs/faces/usage.md § Usage analytics): the shortest decimal that reads back as the
 * JSON number sent (`0.1` is 0.1, not the float nearest it), to METER_PLACES places, and rollups add them up
 * exactly (store/exact-decimal.ts), so 0.1 + 0.2 is 0.3 and eleven events of 999 999 999 999 999 come to
 * 10 999 999 999 999 989.
 */
import { sql } from 'kysely';
import type { UsageIngestOutcome, UsageIngestPayload, UsageIngestResult, UsageMeterEvent } from '../../../generated/server/types.js';
import { chunks } from '../../store/bulk-insert.js';
import { addDecimals, decimalAdd, decimalText, METER_PLACES } from '../../store/exact-decimal.js';
import { isoInstant, parseInstant } from '../../store/instant.js';
import { periodOf } from '../../store/periods.js';
import type { Db, Mode, UsageMeterEventTable, UsageMeterRollupTable } from '../../store/schema.js';

const DAY_MS = 86_400_000;
/** How far back an event may be (Stripe meter events take 35 days). */
export const INGEST_PAST_MS = 35 * DAY_MS;
/** How far ahead an event may be (clock skew). */
export const INGEST_FUTURE_MS = 5 * 60_000;

interface Origin {
  mode: Mode;
  entityId: string;
  keyId: string;
}

export async function ingest(db: Db, origin: Origin, payload: UsageIngestPayload, now = Date.now()): Promise<UsageIngestResult> {
  const nowIso = new Date(now).toISOString();
  const results: UsageIngestOutcome[] = [];
  const candidates = new Map<string, UsageMeterEventTable>();
  for (const event of payload.events) {
    const problem = typeProblem(event) ?? timeProblem(event, now);
    if (problem) results.push({ id: event.id, status: 'invalid', reason: problem });
    else if (candidates.has(event.id)) results.push({ id: event.id, status: 'duplicate' });
    else {
      candidates.set(event.id, toRow(event, origin, nowIso));
      results.push({ id: event.id, status: 'accepted' });
    }
  }

  const inserted = new Set<string>();
  const rows = [...candidates.values()];
  for (const chunk of chunks(rows)) {
    const kept = await db
      .insertInto('usage_meter_events')
      .values(chunk)
      .onConflict((oc) => oc.columns(['mode', 'entity_id', 'id']).doNothing())
      .returning('id')
      .execute();
    for (const { id } of kept) inserted.add(id);
  }
  for (const result of results) if (result.status === 'accepted' && !inserted.has(result.id)) result.status = 'duplicate';

  const rollups = rollupsOf(rows.filter((r) => inserted.has(r.id)));
  for (const chunk of chunks(rollups)) {
    await db
      .insertInto('usage_meter_rollups')
      .values(chunk)
      .onConflict((oc) =>
        oc.columns(['mode', 'entity_id', 'minute', 'type']).doUpdateSet({
          events: sql`usage_meter_rollups.events + excluded.events`,
          value: decimalAdd(db, sql.ref('usage_meter_rollups.value'), sql.ref('excluded.value')),
        }),
      )
      .execute();
  }
  const count = (status: UsageIngestOutcome['status']) => results.filter((r) => r.status === status).length;
  return { results, accepted: count('accepted'), duplicates: count('duplicate'), invalid: count('invalid') };
}

/** Meters the platform keeps itself (storage.storedByteDays): a caller's events cannot add to them. */
const PLATFORM_METERS = /^storage\./;

function typeProblem(event: UsageMeterEvent): string | undefined {
  return PLATFORM_METERS.test(event.type) ? `type "${event.type}" is a meter the platform keeps (storage.*)` : undefined;
}

function timeProblem(event: UsageMeterEvent, now: number): string | undefined {
  if (event.time === undefined) return undefined;
  const at = parseInstant(event.time);
  if (at < now - INGEST_PAST_MS) return 'time is more than 35 days ago';
  if (at > now + INGEST_FUTURE_MS) return 'time is more than 5 minutes ahead';
  return undefined;
}

function toRow(event: UsageMeterEvent, origin: Origin, nowIso: string): UsageMeterEventTable {
  return {
    mode: origin.mode,
    entity_id: origin.entityId,
    id: event.id,
    type: event.type,
    subject: event.subject ?? null,
    time: event.time !== undefined ? isoInstant(event.time) : nowIso,
    value: decimalText(event.value, METER_PLACES),
    properties: event.properties !== undefined ? JSON.stringify(event.properties) : null,
    key_id: origin.keyId,
    ingested_at: nowIso,
  };
}

/** Accepted events added up per (minute, type): one row per key, as an upsert may touch a row once. */
function rollupsOf(rows: UsageMeterEventTable[]): UsageMeterRollupTable[] {
  const byKey = new Map<string, UsageMeterRollupTable>();
  for (const row of rows) {
    const minute = periodOf(row.time, 'minute');
    const key = `${minute}\u0000${row.type}`;
    const found = byKey.get(key);
    if (found) {
      found.events += 1;
      found.value = addDecimals(found.value, row.value);
    } else byKey.set(key, { minute, mode: row.mode, entity_id: row.entity_id, type: row.type, events: 1, value: row.value });
  }
  // In key order: processes upserting the same rows lock them in the same order, so never deadlock.
  return [...byKey.keys()].sort().map((key) => byKey.get(key)!);
}
