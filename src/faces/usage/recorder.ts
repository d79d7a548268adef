/**
 * Writes usage records off the hot path (docs/contract.md § Usage): calls are buffered and written every
 * `flushMs` (or sooner when `flushAt` are waiting), each flush in transactions of its own, never a call's
 * (store/write-usage.ts; on PostgreSQL one statement each, postgres-flush.ts), so no call waits for it and
 * its failure fails no call: the raw records, packed a row per partition (store/usage-record-packs.ts), and
 * the minute, hour and day rollups they add to (rollups.ts), so summaries never read raw records; each
 * transaction holds whole entities' records with their rollups (flush-parts.ts). One flush runs at a time. A
 * graceful stop flushes what is buffered; a crash loses at most one flush window. While the store is
 * unreachable, records wait (up to `maxBuffered`, the oldest dropped beyond, counted) and flushes back off; a
 * record the store refuses for its content is dropped and counted, never retried forever in front of the others.
 */
import type { CompiledQuery } from 'kysely';
import type { Db, UsageRecordTable } from '../../store/schema.js';
import { insertStatements } from '../../store/bulk-insert.js';
import { packsOf } from '../../store/usage-record-packs.js';
import { writeUsage } from '../../store/write-usage.js';
import { storeKind } from '../../store/open.js';
import { isStoreUnavailable } from '../../store/unavailable.js';
import type { UsageFeed } from './feed.js';
import { partsOf } from './flush-parts.js';
import { writeFlushOnPostgres } from './postgres-flush.js';
import type { UsageRelay } from './relay.js';
import { rollupStatements, type RecordWithCost } from './rollups.js';
import { log } from '../../core/log.js';

export interface UsageRecorderOptions {
  /** How long a record may wait before it is written (ms): the most a crash can lose. */
  flushMs: number;
  /** Records waiting that start a flush at once. */
  flushAt?: number;
  /** The most records kept while the store refuses them; the oldest are dropped beyond (and counted). */
  maxBuffered?: number;
  /** Where written records go next (`usage.live`). */
  feed?: UsageFeed;
  /** Announces each flush to the other processes of a shared store (`usage.live` across processes). */
  relay?: Pick<UsageRelay, 'notices'>;
}

/** The longest wait between attempts while the store is unreachable. */
const MAX_BACKOFF_MS = 30_000;
/**
 * Records per transaction of a flush (flush-parts.ts). No call waits for a part: on the embedded store the usage
 * file's writer runs it (store/sqlite/usage-file.ts). A whole window in one transaction measured the same.
 */
const PART_RECORDS = 500;
/** Records a flush could not write because the store could not be reached, and the error that said so. */
interface Outage {
  unwritten: RecordWithCost[];
  error: unknown;
}

/** A record's partition: every rollup row it adds to is its mode's and entity's. */
const partitionOf = ({ row }: RecordWithCost) => `${row.mode}\u0000${row.entity_id}`;

export class UsageRecorder {
  readonly #db: Db;
  readonly #flushMs: number;
  readonly #flushAt: number;
  readonly #maxBuffered: number;
  readonly #feed: UsageFeed | undefined;
  readonly #relay: UsageRecorderOptions['relay'];
  /** Each record with its cost in nano-units, which the rollups add up. */
  #buffer: RecordWithCost[] = [];
  #timer: NodeJS.Timeout | undefined;
  /** The flush under way, if any. */
  #writing: Promise<void> | undefined;
  /** How long to wait before the next attempt: the flush window, doubled after each failed attempt. */
  #delayMs: number;
  #closed = false;
  /** Records dropped: too many waited while the store was unreachable, or the store refused their content. */
  dropped = 0;

  constructor(db: Db, options: UsageRecorderOptions) {
    this.#db = db;
    this.#flushMs = options.flushMs;
    this.#delayMs = options.flushMs;
    // Flushes go by time. A flush costs per rollup row it adds to (a key, entity, action and status in a minute)
    // and per store page those rows and the records' index entries fall on, pages spread by entity: a whole
    // window's calls share them, where a flush of every few hundred records of many callers' traffic paid them
    // again each time (docs/benchmarks.md). The count only bounds one flush, far above a window at the rates served.
    this.#flushAt = options.flushAt ?? 20_000;
    this.#maxBuffered = options.maxBuffered ?? 100_000;
    this.#feed = options.feed;
    this.#relay = options.relay;
  }

  /** Buffers `row`, whose call cost `costNanos` and reported `units` (the row's, read from it when not given). */
  record(row: UsageRecordTable, costNanos: bigint, units: Readonly<Record<string, number>> = JSON.parse(row.units)): void {
    if (this.#closed) return;
    this.#buffer.push({ row, costNanos, units });
    if (this.#buffer.length > this.#maxBuffered) {
      this.#buffer.shift();
      this.dropped += 1;
    }
    // While the store fails, the back-off decides when to try again, not the number waiting.
    if (this.#buffer.length >= this.#flushAt && this.#delayMs === this.#flushMs && !this.#writing) void this.flush();
    else this.#timer ??= setTimeout(() => void this.flush(), this.#delayMs).unref();
  }

  /** Writes what is buffered, after the flush under way if there is one. */
  async flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    while (this.#writing) await this.#writing;
    this.#writing = this.#write().finally(() => (this.#writing = undefined));
    await this.#writing;
  }

  /** Flushes what is left and takes no more records; call it when the server stops. */
  async close(): Promise<void> {
    await this.flush();
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#buffer.length > 0 || this.dropped > 0) {
      log.error({ unwritten: this.#buffer.length, dropped: this.dropped }, 'usage: records not written before the stop');
    }
  }

  async #write(): Promise<void> {
    const rows = this.#buffer;
    if (rows.length === 0) return;
    this.#buffer = [];
    const parts = partsOf(rows, partitionOf, PART_RECORDS);
    for (let i = 0; i < parts.length; i++) {
      const outage = await this.#writePart(parts[i]!);
      if (outage) {
        // Kept for the next attempt, in the order they came (parts are not), so an outage loses nothing it
        // can wait out, and a full buffer drops the oldest.
        const kept = new Set(outage.unwritten.concat(...parts.slice(i + 1)));
        this.#keep(rows.filter((record) => kept.has(record)), outage.error);
        break;
      }
    }
    if (this.#buffer.length > 0 && !this.#closed) this.#timer ??= setTimeout(() => void this.flush(), this.#delayMs).unref();
  }

  /** Writes one part; returns its records left unwritten because the store could not be reached, and why. */
  async #writePart(part: RecordWithCost[]): Promise<Outage | undefined> {
    try {
      await this.#commit(part);
      this.#delayMs = this.#flushMs;
      return undefined;
    } catch (error) {
      if (isStoreUnavailable(error)) return { unwritten: part, error };
      return this.#commitEach(part, error);
    }
  }

  /** Puts `waiting` back before the records buffered since, and waits longer before the next attempt. */
  #keep(waiting: RecordWithCost[], error: unknown): void {
    const all = waiting.concat(this.#buffer);
    this.#buffer = all.slice(-this.#maxBuffered);
    this.dropped += all.length - this.#buffer.length;
    this.#delayMs = Math.min(this.#delayMs * 2, MAX_BACKOFF_MS);
    log.error({ detail: (error as Error).message, waiting: this.#buffer.length, retryMs: this.#delayMs }, 'usage: the store is unreachable; records wait');
  }

  /** Writes the records and their rollups in one transaction, then hands them to live followers. */
  async #commit(rows: RecordWithCost[]): Promise<void> {
    if (storeKind(this.#db) === 'postgres') await writeFlushOnPostgres(this.#db, rows, (packs) => this.#relay?.notices(packs) ?? []);
    else await writeUsage(this.#db, flushStatements(this.#db, rows));
    if (this.#feed?.followed) this.#feed.publish(rows.map((r) => r.row));
  }

  /**
   * The store refused a part for its content: each record on its own, so one bad record costs only itself.
   * Returns the records left unwritten when the store could no longer be reached meanwhile.
   */
  async #commitEach(rows: RecordWithCost[], cause: unknown): Promise<Outage | undefined> {
    let refused = 0;
    let outage: Outage | undefined;
    for (const [i, row] of rows.entries()) {
      try {
        await this.#commit([row]);
      } catch (error) {
        if (isStoreUnavailable(error)) {
          outage = { unwritten: rows.slice(i), error };
          break;
        }
        refused += 1;
      }
    }
    this.dropped += refused;
    log.error({ dropped: refused, of: rows.length, detail: (cause as Error).message }, 'usage: records the store refused are dropped');
    return outage;
  }
}

/**
 * A flush as multi-row statements, the records' packs and then the rollups', to run in one transaction: the
 * embedded store's way (on PostgreSQL one statement does it all: postgres-flush.ts).
 */
export function flushStatements(db: Db, rows: readonly RecordWithCost[]): CompiledQuery[] {
  return [...insertStatements(db, 'usage_record_packs', packsOf(rows.map((r) => r.row))), ...rollupStatements(db, rows)];
}
