/**
 * Group commit: the events of many calls in one transaction. A call that wrote nothing itself still has to
 * store its events (and its idempotent reply) durably before it answers, and on a busy server that costs a
 * commit (a WAL write on SQLite, a flush on PostgreSQL) and round trips. The events of a group are written
 * with a few statements whatever their number (`writeEventBatches`); writes that arrive while a group is
 * committing wait for the next one, so a lone call commits at once and a crowd of calls shares one commit.
 * Nobody is answered before their writes are committed.
 *
 * Should a group fail (one call's write is refused, say), it is rolled back and each write is run again in
 * a transaction of its own, so that only the write at fault fails.
 */
import { writeEventBatches, type EventBatch } from './events.js';
import { storeKind } from './open.js';
import type { Db } from './schema.js';
import { CallTransaction } from './transaction.js';

/** One call's events, and what else it writes with them (its stored reply), run after the events. */
export interface GroupedWrite extends EventBatch {
  then?: (db: Db) => Promise<void>;
}

/** The most writes one transaction takes; the rest wait for the next. */
const MAX_GROUP = 64;

export class CommitGroup {
  readonly #db: Db;
  /** Groups committing at once: one on SQLite's one connection, a few on a PostgreSQL pool. */
  readonly #parallel: number;
  #waiting: { write: GroupedWrite; resolve: () => void; reject: (error: unknown) => void }[] = [];
  #committing = 0;
  #scheduled = false;

  constructor(db: Db) {
    this.#db = db;
    this.#parallel = storeKind(db) === 'postgres' ? 4 : 1;
  }

  /** Writes in a transaction shared with other calls' writes; resolves once it is committed. */
  commit(write: GroupedWrite): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ write, resolve, reject });
      this.#schedule();
    });
  }

  /**
   * Starts a group on the next turn of the event loop, so that the calls finishing in this one join it
   * (on SQLite a commit runs without yielding: nobody could join it while it runs).
   */
  #schedule(): void {
    if (this.#scheduled || this.#committing >= this.#parallel || this.#waiting.length === 0) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      void this.#commitGroup();
    });
  }

  async #commitGroup(): Promise<void> {
    const group = this.#waiting.splice(0, MAX_GROUP);
    if (group.length === 0) return;
    this.#committing += 1;
    try {
      await this.#run(group.map((g) => g.write));
      for (const g of group) g.resolve();
    } catch (error) {
      if (group.length === 1) group[0]!.reject(error);
      else for (const g of group) await this.#run([g.write]).then(g.resolve, g.reject);
    } finally {
      this.#committing -= 1;
      this.#schedule();
    }
  }

  async #run(writes: GroupedWrite[]): Promise<void> {
    const tx = new CallTransaction(this.#db);
    try {
      await writeEventBatches(tx.db, writes);
      for (const write of writes) await write.then?.(tx.db);
      await tx.commit();
    } catch (error) {
      await tx.rollback();
      throw error;
    }
  }
}
