/**
 * New idempotency records of many requests, inserted together. Every call that sends an idempotency key
 * first inserts a running record for it, unless the key has one; on a busy server that is a round trip (on
 * PostgreSQL) or a message to the writer thread (on SQLite) per call. The claims that arrive in one turn of
 * the event loop are inserted by one multi-row statement instead, which says which of them it inserted. The
 * records are the ones each insert would have made alone: a key named twice in one turn is claimed by the
 * first request only, as if the two had come one after the other.
 */
import { multiRowStatements } from './bulk-insert.js';
import type { Db } from './schema.js';

/** A new running record, as `claimIdempotencyKey` inserts it. */
export interface RunningRecord {
  scope: string;
  key: string;
  fingerprint: string;
  created_at: string;
  expires_at: string;
  leased_until: string;
}

interface Waiting {
  record: RunningRecord;
  resolve: (inserted: boolean) => void;
  reject: (error: unknown) => void;
}

const batches = new WeakMap<Db, ClaimBatch>();

/** Inserts `record` with the others of this turn; true when it was inserted, false when its key has a record. */
export function insertRunning(db: Db, record: RunningRecord): Promise<boolean> {
  let batch = batches.get(db);
  if (!batch) batches.set(db, (batch = new ClaimBatch(db)));
  return batch.insert(record);
}

class ClaimBatch {
  readonly #db: Db;
  #waiting: Waiting[] = [];

  constructor(db: Db) {
    this.#db = db;
  }

  insert(record: RunningRecord): Promise<boolean> {
    return new Promise((resolve, reject) => {
      if (this.#waiting.length === 0) setImmediate(() => void this.#flush());
      this.#waiting.push({ record, resolve, reject });
    });
  }

  async #flush(): Promise<void> {
    const waiting = this.#waiting;
    this.#waiting = [];
    const named = new Set<string>();
    const rows = [];
    for (const { record } of waiting) {
      const name = keyOf(record);
      if (named.has(name)) continue;
      named.add(name);
      rows.push({ ...record, state: 'running' as const, status: null, body: null, headers: null });
    }
    try {
      const inserted = new Set<string>();
      const db = this.#db;
      const statements = multiRowStatements(db, 'idempotency_records:claim', rows, (chunk) =>
        db
          .insertInto('idempotency_records')
          .values(chunk as never)
          .onConflict((oc) => oc.columns(['scope', 'key']).doNothing())
          .returning(['scope', 'key']),
      );
      for (const statement of statements) {
        const { rows: claimed } = await db.executeQuery<{ scope: string; key: string }>(statement);
        for (const row of claimed) inserted.add(keyOf(row));
      }
      // Each key inserted once: the first request that named it took it.
      for (const { record, resolve } of waiting) {
        const name = keyOf(record);
        resolve(inserted.delete(name));
      }
    } catch (error) {
      for (const { reject } of waiting) reject(error);
    }
  }
}

const keyOf = (record: { scope: string; key: string }) => `${record.scope}\u0000${record.key}`;
