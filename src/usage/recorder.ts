/**
 * Writes usage records off the hot path (API.md §13): calls are buffered and written every `flushMs` (or
 * sooner when many are waiting), each flush in one transaction with one statement per table: the raw
 * records, and the minute rollups they add to (upserts that add counts, costs, latency buckets and units),
 * so summaries never read raw records. A graceful stop flushes what is buffered; a crash loses at most one
 * flush window. A flush that fails keeps its records for the next one (up to `maxBuffered`).
 */
import { sql, type CompiledQuery } from 'kysely';
import type { Db, UsageRecordTable, UsageRollupTable, UsageUnitRollupTable } from '../store/schema.js';
import { insertStatements } from '../store/bulk-insert.js';
import { batchWriter } from '../store/open.js';
import type { UsageFeed } from './feed.js';
import { LATENCY_COLUMNS, latencyBucket } from './latency.js';

export interface UsageRecorderOptions {
  /** How long a record may wait before it is written (ms): the most a crash can lose. */
  flushMs: number;
  /** Records waiting that start a flush at once. */
  flushAt?: number;
  /** The most records kept while the store refuses them; the oldest are dropped beyond (and counted). */
  maxBuffered?: number;
  /** Where written records go next (`usage.live`). */
  feed?: UsageFeed;
}

/** Rows per upsert: 24 columns × 500 stays well under the bound parameters of SQLite and PostgreSQL. */
const ROWS_PER_INSERT = 500;
const ROLLUP_KEY = ['mode', 'entity_id', 'minute', 'key_id', 'face', 'action', 'status'] as const;
const UNIT_KEY = ['mode', 'entity_id', 'minute', 'key_id', 'face', 'action', 'status', 'unit'] as const;

export class UsageRecorder {
  readonly #db: Db;
  readonly #flushMs: number;
  readonly #flushAt: number;
  readonly #maxBuffered: number;
  readonly #feed: UsageFeed | undefined;
  /** Each record with its cost in nano-units, which the rollups add up. */
  #buffer: Buffered[] = [];
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();
  /** Records dropped because the store refused them for too long. */
  dropped = 0;

  constructor(db: Db, options: UsageRecorderOptions) {
    this.#db = db;
    this.#flushMs = options.flushMs;
    // One statement's worth: a flush then holds the store's writer for a few milliseconds, not for a whole second's records.
    this.#flushAt = options.flushAt ?? 500;
    this.#maxBuffered = options.maxBuffered ?? 100_000;
    this.#feed = options.feed;
  }

  record(row: UsageRecordTable, costNanos: bigint): void {
    this.#buffer.push({ row, costNanos });
    if (this.#buffer.length >= this.#flushAt) void this.flush();
    else this.#timer ??= setTimeout(() => void this.flush(), this.#flushMs).unref();
  }

  /** Writes what is buffered; flushes run one after another. */
  flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#writing = this.#writing.then(() => this.#write());
    return this.#writing;
  }

  /** Flushes what is left; call it when the server stops. */
  close(): Promise<void> {
    return this.flush();
  }

  async #write(): Promise<void> {
    const rows = this.#buffer;
    if (rows.length === 0) return;
    this.#buffer = [];
    try {
      const statements = [
        ...insertStatements(
          this.#db,
          'usage_records',
          rows.map((r) => r.row),
        ),
        ...rollupStatements(this.#db, rollupsOf(rows)),
        ...unitStatements(this.#db, unitRollupsOf(rows)),
      ];
      // On SQLite, one message to the writer thread; elsewhere, one transaction like any other.
      const batch = batchWriter(this.#db);
      if (batch) await batch(statements);
      else
        await this.#db.transaction().execute(async (trx) => {
          for (const statement of statements) await trx.executeQuery(statement);
        });
      if (this.#feed?.followed) this.#feed.publish(rows.map((r) => r.row));
    } catch (error) {
      // Kept for the next flush, in order, so a store outage loses nothing it can wait out.
      this.#buffer = [...rows, ...this.#buffer];
      const over = this.#buffer.length - this.#maxBuffered;
      if (over > 0) {
        this.#buffer.splice(0, over);
        this.dropped += over;
      }
      console.error(`usage: ${rows.length} records not written yet (${(error as Error).message}); retrying with the next flush.`);
      this.#timer ??= setTimeout(() => void this.flush(), this.#flushMs).unref();
    }
  }
}

const minuteOf = (at: string) => at.slice(0, 16);

interface Buffered {
  row: UsageRecordTable;
  costNanos: bigint;
}

/** The rows' additions to the minute rollups, one per key (a statement may not touch a row twice). */
function rollupsOf(rows: Buffered[]): UsageRollupTable[] {
  const byKey = new Map<string, UsageRollupTable & { nanos: bigint }>();
  for (const { row: r, costNanos } of rows) {
    const minute = minuteOf(r.at);
    const key = [r.mode, r.entity_id, minute, r.key_id, r.face, r.action, r.status].join('\u0000');
    let rollup = byKey.get(key);
    if (!rollup) {
      rollup = {
        minute,
        mode: r.mode,
        entity_id: r.entity_id,
        key_id: r.key_id,
        face: r.face,
        action: r.action,
        status: r.status,
        calls: 0,
        errors: 0,
        replayed: 0,
        cost_nanos: '0',
        latency_ms_sum: 0,
        nanos: 0n,
        ...Object.fromEntries(LATENCY_COLUMNS.map((c) => [c, 0])),
      } as UsageRollupTable & { nanos: bigint };
      byKey.set(key, rollup);
    }
    rollup.calls += 1;
    if (r.status >= 400) rollup.errors += 1;
    rollup.replayed += r.replayed;
    rollup.nanos += costNanos;
    rollup.latency_ms_sum += r.latency_ms;
    const bucket = LATENCY_COLUMNS[latencyBucket(r.latency_ms)]!;
    rollup[bucket] = (rollup[bucket] ?? 0) + 1;
  }
  return [...byKey.values()].map(({ nanos, ...rollup }) => ({
    ...rollup,
    cost_nanos: nanos.toString(),
  }));
}

function unitRollupsOf(rows: Buffered[]): UsageUnitRollupTable[] {
  const byKey = new Map<string, UsageUnitRollupTable>();
  for (const { row: r } of rows) {
    if (r.units === '{}') continue;
    for (const [unit, amount] of Object.entries(JSON.parse(r.units) as Record<string, number>)) {
      const minute = minuteOf(r.at);
      const key = [r.mode, r.entity_id, minute, r.key_id, r.face, r.action, r.status, unit].join('\u0000');
      const rollup = byKey.get(key);
      if (rollup) rollup.amount += amount;
      else
        byKey.set(key, {
          minute,
          mode: r.mode,
          entity_id: r.entity_id,
          key_id: r.key_id,
          face: r.face,
          action: r.action,
          status: r.status,
          unit,
          amount,
        });
    }
  }
  return [...byKey.values()];
}

function rollupStatements(db: Db, rollups: UsageRollupTable[]): CompiledQuery[] {
  const added = ['calls', 'errors', 'replayed', 'cost_nanos', 'latency_ms_sum', ...LATENCY_COLUMNS] as const;
  const statements: CompiledQuery[] = [];
  for (let i = 0; i < rollups.length; i += ROWS_PER_INSERT) {
    statements.push(
      db
        .insertInto('usage_rollups')
        .values(rollups.slice(i, i + ROWS_PER_INSERT))
        .onConflict((oc) =>
          oc
            .columns([...ROLLUP_KEY])
            .doUpdateSet(Object.fromEntries(added.map((c) => [c, sql`usage_rollups.${sql.ref(c)} + excluded.${sql.ref(c)}`])) as never),
        )
        .compile(),
    );
  }
  return statements;
}

function unitStatements(db: Db, rollups: UsageUnitRollupTable[]): CompiledQuery[] {
  const statements: CompiledQuery[] = [];
  for (let i = 0; i < rollups.length; i += ROWS_PER_INSERT) {
    statements.push(
      db
        .insertInto('usage_unit_rollups')
        .values(rollups.slice(i, i + ROWS_PER_INSERT))
        .onConflict((oc) =>
          oc.columns([...UNIT_KEY]).doUpdateSet({
            amount: sql`usage_unit_rollups.amount + excluded.amount`,
          }),
        )
        .compile(),
    );
  }
  return statements;
}
