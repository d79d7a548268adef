/**
 * A month of usage as calls would leave it: one million records over 30 days, in time order, from 40 keys
 * of 20 entities (a few busy, most quiet), across eleven actions of five faces, with errors, replays, units,
 * costs priced from the face files and latencies from sub-millisecond to seconds. They are written through
 * the server's own write path (`UsageRecorder.record` and `flush`), so the minute rollups are exactly those
 * a server would keep. A fixed pseudo-random sequence makes every seed the same store.
 */
import { faces } from '../generated/server/dispatch.js';
import { newId } from '../src/store/secrets.js';
import type { Db, UsageRecordTable } from '../src/store/schema.js';
import { callCostNanos, nanosToDecimal } from '../src/faces/usage/cost.js';
import { UsageRecorder } from '../src/faces/usage/recorder.js';

export const SEED = { records: 1_000_000, days: 30, entities: 20, keysPerEntity: 2, mode: 'live', generator: 1 } as const;
/** Records per flush: the recorder writes each flush as one transaction (500-row statements). */
const FLUSH_RECORDS = 10_000;
const DAY_MS = 86_400_000;

/** [share of calls, face, action]: a mix like an API's, dominated by generation. */
const ACTIONS: [number, string, string][] = [
  [0.45, 'ai', 'generate'],
  [0.12, 'keys', 'get'],
  [0.05, 'keys', 'list'],
  [0.02, 'keys', 'create'],
  [0.08, 'usage', 'summary'],
  [0.04, 'usage', 'events'],
  [0.06, 'usage', 'ingest'],
  [0.05, 'webhooks', 'list'],
  [0.01, 'webhooks', 'create'],
  [0.08, 'auth', 'login'],
  [0.04, 'auth', 'session'],
];
/** [share of calls, status, error code]. */
const STATUSES: [number, number, string | null][] = [
  [0.88, 200, null],
  [0.03, 400, 'payload_invalid'],
  [0.01, 403, 'scope_forbidden'],
  [0.02, 404, 'not_found'],
  [0.01, 409, 'idempotency_conflict'],
  [0.04, 429, 'rate_limited'],
  [0.01, 500, 'internal_error'],
];

export const entityName = (i: number) => `entity-${String(i).padStart(2, '0')}`;
const keyName = (entity: number, key: number) => `key_bench${entity}k${key}`;

/** What the seeded store depends on besides the code that writes it: the plan above and the prices it uses. */
export function seedFingerprint(): string {
  const prices = ACTIONS.map(([, face, action]) => faces.get(face)?.actions.get(action)?.cost);
  return JSON.stringify({ SEED, FLUSH_RECORDS, ACTIONS, STATUSES, prices });
}

/** mulberry32: small, fast and the same on every machine. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Picks from `[share, ...]` entries by a number in [0, 1). */
function pick<T extends [number, ...unknown[]]>(entries: readonly T[], r: number): T {
  for (const entry of entries) if ((r -= entry[0]) < 0) return entry;
  return entries.at(-1)!;
}

export interface SeedStats {
  records: number;
  /** The 30 days the records span, to the minute. */
  from: string;
  to: string;
}

/** Writes the records ending at `to` (a whole minute) through a recorder, and checks that all were kept. */
export async function seedUsage(db: Db, to: Date): Promise<SeedStats> {
  const next = random(SEED.generator);
  const from = new Date(to.getTime() - SEED.days * DAY_MS);
  const spacing = (to.getTime() - from.getTime()) / SEED.records;
  // Entity i makes a share of calls proportional to 1/(i+1): a few busy tenants and a long tail.
  const weights = Array.from({ length: SEED.entities }, (_, i) => 1 / (i + 1));
  const sum = weights.reduce((a, b) => a + b, 0);
  const entities = weights.map((w, i) => [w / sum, i] as [number, number]);
  const recorder = new UsageRecorder(db, { flushMs: 3_600_000, flushAt: FLUSH_RECORDS + 1, maxBuffered: 2 * FLUSH_RECORDS });

  for (let i = 0; i < SEED.records; i++) {
    const atMs = from.getTime() + Math.floor((i + next()) * spacing);
    const entity = pick(entities, next())[1];
    const [, face, action] = pick(ACTIONS, next());
    const [, status, errorCode] = pick(STATUSES, next());
    const replayed = status === 200 && next() < 0.01;
    const generating = face === 'ai';
    const units: Record<string, number> =
      status !== 200 || replayed ? {} : generating ? { inputTokens: 20 + Math.floor(next() * 2000), outputTokens: 10 + Math.floor(next() * 800) } : face === 'usage' && action === 'ingest' ? { meterEvents: 1 + Math.floor(next() * 100) } : {};
    const cost = status === 200 ? callCostNanos(faces.get(face)!.actions.get(action)!.cost, units, replayed) : 0n;
    const row: UsageRecordTable = {
      // Ids sort by the instant of `at`, as the server makes them.
      id: newId('use', atMs),
      request_id: newId('req', atMs),
      at: new Date(atMs).toISOString(),
      key_id: keyName(entity, next() < 0.7 ? 0 : 1),
      mode: SEED.mode,
      entity_id: entityName(entity),
      face,
      action,
      api_version: '2026-09-01',
      status,
      error_code: errorCode,
      latency_ms: Math.round((generating ? 50 : 0.5) * Math.exp(next() * 4) * 100) / 100,
      units: JSON.stringify(units),
      cost: nanosToDecimal(cost),
      currency: 'usd',
      replayed: replayed ? 1 : 0,
    };
    recorder.record(row, cost);
    if ((i + 1) % FLUSH_RECORDS === 0) await recorder.flush();
  }
  await recorder.close();

  // The recorder keeps what a flush could not write for the next one and logs it; a seed must have kept all.
  const records = Number((await db.selectFrom('usage_records').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  const calls = Number((await db.selectFrom('usage_rollups').select((eb) => eb.fn.sum('calls').as('n')).executeTakeFirstOrThrow()).n);
  if (records !== SEED.records || calls !== SEED.records) throw new Error(`Seeding kept ${records} records and ${calls} calls in rollups, not ${SEED.records}.`);
  return { records, from: from.toISOString(), to: to.toISOString() };
}
