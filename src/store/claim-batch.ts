/**
 * New idempotency records of many requests, inserted together. Every call that sends an idempotency key
 * first inserts a running record for it, unless the key has one; on a busy server that is a round trip (on
 * PostgreSQL) or a message to the writer thread (on SQLite) per call. The claims that arrive in one turn of
 * the event loop are inserted by one multi-row statement instead, which says which of them it inserted. The
 * records are the ones each insert would have made alone: a key named twice in one turn is claimed by the
 * first request only, as if the two had come one after the other.
 */
import type { CompiledQuery } from 'kysely';
import { groupBy } from '../group-by.js';
import { chunks, multiRowStatements } from './bulk-insert.js';
import { embeddedStore } from './open.js';
import type { Db } from './schema.js';
import { isStoreUnavailable } from './unavailable.js';

/** A new running record, as `claimIdempotencyKey` inserts it. */
export type RunningRecord = {
  scope: string;
  key: string;
  fingerprint: string;
  created_at: string;
  expires_at: string;
  leased_until: string;
};

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
    try {
      await this.#claim(waiting);
    } catch (error) {
      // A store that cannot be reached, or statements that could not be made: every request not answered yet
      // fails with it at once (an answered one keeps its answer: a settled promise ignores this).
      for (const one of waiting) one.reject(error);
    }
  }

  async #claim(waiting: Waiting[]): Promise<void> {
    // The requests naming each key, in arrival order: the first takes the key, the others find it held.
    const byKey = groupBy(waiting, (one) => keyOf(one.record));
    // Rows go in (scope, key) order, the same in every process: two inserts that share keys then take their
    // locks in one order, where arrival order could make each wait for the other (a deadlock on PostgreSQL).
    const rows = [...byKey.keys()].sort().map((name) => runningRow(byKey.get(name)![0]!.record));
    // Each statement commits alone, so its requests are answered as it commits, whatever the next one does.
    for (const statement of claimStatements(this.#db, rows)) {
      try {
        settle(byKey, await this.#run(statement.query), statement.rows);
      } catch (error) {
        // Unreachable, the store would fail each row alone too, one wait after another.
        if (isStoreUnavailable(error)) throw error;
        // One refused row fails its statement: each row is tried alone, and only the refused one fails.
        if (statement.rows.length === 1) refuse(byKey, statement.rows[0]!, error);
        else for (const row of statement.rows) await this.#claimAlone(byKey, row);
      }
    }
  }

  async #claimAlone(byKey: Map<string, Waiting[]>, row: RunningRow): Promise<void> {
    try {
      settle(byKey, await this.#run(claimStatements(this.#db, [row])[0]!.query), [row]);
    } catch (error) {
      refuse(byKey, row, error);
    }
  }

  /**
   * The keys `statement` inserted. On the embedded store it goes to the writer at once, not at the end of
   * the next turn as a lone statement would: it is this turn's claims already, and every call in it waits.
   */
  async #run(statement: CompiledQuery): Promise<Set<string>> {
    const embedded = embeddedStore(this.#db);
    const { rows } = embedded ? await embedded.writeNow(statement) : await this.#db.executeQuery(statement);
    return new Set((rows as { scope: string; key: string }[]).map(keyOf));
  }
}

interface ClaimStatement {
  query: CompiledQuery;
  rows: RunningRow[];
}

type RunningRow = RunningRecord & { state: 'running'; status: null; body: null; headers: null };

// Written out: an object spread here cost more than the rest of the claim's own work.
const runningRow = (record: RunningRecord): RunningRow => ({
  scope: record.scope,
  key: record.key,
  fingerprint: record.fingerprint,
  created_at: record.created_at,
  expires_at: record.expires_at,
  leased_until: record.leased_until,
  state: 'running',
  status: null,
  body: null,
  headers: null,
});

/** The multi-row inserts of `rows`, each with the rows it inserts. */
function claimStatements(db: Db, rows: RunningRow[]): ClaimStatement[] {
  const queries = multiRowStatements(db, 'idempotency_records:claim', rows, (chunk) =>
    db
      .insertInto('idempotency_records')
      .values(chunk as never)
      .onConflict((oc) => oc.columns(['scope', 'key']).doNothing())
      .returning(['scope', 'key']),
  );
  const chunked = [...chunks(rows)];
  return queries.map((query, i) => ({ query, rows: chunked[i]! }));
}

/** Answers the requests naming `rows`' keys: the first to name a key took it when `inserted` holds it. */
function settle(byKey: Map<string, Waiting[]>, inserted: Set<string>, rows: RunningRow[]): void {
  for (const row of rows) {
    const name = keyOf(row);
    byKey.get(name)!.forEach(({ resolve }, i) => resolve(i === 0 && inserted.has(name)));
  }
}

/** Fails the requests naming `row`'s key with `error`. */
function refuse(byKey: Map<string, Waiting[]>, row: RunningRow, error: unknown): void {
  for (const { reject } of byKey.get(keyOf(row))!) reject(error);
}

const keyOf = (record: { scope: string; key: string }) => `${record.scope}\u0000${record.key}`;
