/**
 * Group commit: the writes of many calls in one transaction. A call that wrote nothing itself still has to
 * store its events (and its idempotent reply) durably before it answers, and on a busy server the commit,
 * not the insert, is what that costs (a WAL write on SQLite, a flush on PostgreSQL). Writes that arrive
 * while a group is committing wait for the next one, so a lone call commits at once and a crowd of calls
 * shares one commit; nobody is answered before their writes are committed.
 *
 * Should a group fail (one call's write is refused, say), it is rolled back and each write is run again in
 * a transaction of its own, so that only the write at fault fails.
 */
import type { Db } from './schema.js';
import { CallTransaction } from './transaction.js';

type Write = (db: Db) => Promise<void>;

/** The most writes one transaction takes; the rest wait for the next. */
const MAX_GROUP = 64;

export class CommitGroup {
  readonly #db: Db;
  #waiting: { write: Write; resolve: () => void; reject: (error: unknown) => void }[] = [];
  #committing = false;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Runs `write` in a transaction shared with other calls' writes; resolves once it is committed. */
  commit(write: Write): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ write, resolve, reject });
      if (this.#committing) return;
      this.#committing = true;
      // Wait for the calls finishing in the same turn of the event loop: on SQLite a commit runs without
      // yielding, so nobody could join it otherwise.
      setImmediate(() => void this.#drain());
    });
  }

  async #drain(): Promise<void> {
    try {
      while (this.#waiting.length > 0) {
        const group = this.#waiting.splice(0, MAX_GROUP);
        try {
          await this.#run(group.map((g) => g.write));
          for (const g of group) g.resolve();
        } catch (error) {
          if (group.length === 1) group[0]!.reject(error);
          else for (const g of group) await this.#run([g.write]).then(g.resolve, g.reject);
        }
      }
    } finally {
      this.#committing = false;
    }
  }

  async #run(writes: Write[]): Promise<void> {
    const tx = new CallTransaction(this.#db);
    try {
      for (const write of writes) await write(tx.db);
      await tx.commit();
    } catch (error) {
      await tx.rollback();
      throw error;
    }
  }
}
