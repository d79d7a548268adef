/**
 * The store transaction of one call (or of one atomic batch), begun by its first write rather than up
 * front. A handler often does slow work between reading and writing (checking a password, resolving a URL,
 * calling a model); an open transaction holds a connection, on SQLite the one every other request waits
 * for, so it is held only from the first write to the commit. Reads before that see what is committed,
 * as any statement outside a transaction does; from the first write on, every query runs in the
 * transaction and sees the call's own writes (and, in an atomic batch, those of the requests before).
 *
 * `db` is a Kysely instance like any other. Once the transaction is committed or rolled back, any further
 * query through it fails instead of quietly running outside it (a handler that ignored its time-out must
 * not write after the rollback). What must follow a commit (`afterCommit`) or a rollback (`afterRollback`)
 * is registered on `db`.
 */
import { Kysely, SelectQueryNode, type CompiledQuery, type ConnectionProvider, type ControlledTransaction, type DatabaseConnection, type Dialect, type Driver } from 'kysely';
import type { Database, Db } from './schema.js';
import { log } from '../core/log.js';

/** What must wait for a call's transaction to commit, by the `db` of that transaction. */
const afterCommits = new WeakMap<Db, (() => void)[]>();

/**
 * Runs `effect` once what was written through `db` is committed: at once for the store itself, after the
 * commit for a call's transaction (and never if it rolls back). Telling others about a change (a revoked
 * key, queued deliveries) before it is visible would let them act on the old state.
 */
export function afterCommit(db: Db, effect: () => void): void {
  const pending = afterCommits.get(db);
  if (pending) pending.push(effect);
  else effect();
}

/** What must happen on the store itself if a call's transaction rolls back, by the `db` of that transaction. */
const afterRollbacks = new WeakMap<Db, ((store: Db) => Promise<unknown>)[]>();

/**
 * Runs `effect` on the store itself once the transaction of `db` has rolled back, and never if it commits:
 * for what must outlast the call's failure, such as content already placed outside the store, or a failed
 * login that must count although an atomic batch undoes it. `db` is a call's (`CallTransaction.db`); on the
 * store itself nothing is ever rolled back, so nothing runs. A failing effect is logged.
 */
export function afterRollback(db: Db, effect: (store: Db) => Promise<unknown>): void {
  afterRollbacks.get(db)?.push(effect);
}

// The driver and dialect of a call's Kysely only serve transactions, migrations and introspection, none of
// which a handler may start inside its call's transaction.
const unsupported = () => {
  throw new Error('Not available inside a call: the call already runs in a transaction.');
};
const driver = {
  init: async () => {},
  acquireConnection: unsupported,
  beginTransaction: unsupported,
  commitTransaction: unsupported,
  rollbackTransaction: unsupported,
  releaseConnection: async () => {},
  destroy: async () => {},
} satisfies Driver;
const dialect = { createAdapter: unsupported, createDriver: () => driver, createIntrospector: unsupported, createQueryCompiler: unsupported } satisfies Dialect;

export class CallTransaction {
  readonly #root: Db;
  #db: Db | undefined;
  #begun: Promise<ControlledTransaction<Database>> | undefined;
  #finished = false;

  constructor(root: Db) {
    this.#root = root;
  }

  /** The store as the call sees it; made on first use, as many calls never touch it. */
  get db(): Db {
    if (this.#db) return this.#db;
    const inTransaction = async <T>(consumer: (connection: DatabaseConnection) => Promise<T>): Promise<T> => {
      if (this.#finished) throw new Error('The call has ended: its transaction is closed.');
      this.#begun ??= this.#root.startTransaction().execute();
      return (await this.#begun).getExecutor().provideConnection(consumer);
    };
    // Until the first write, each query picks its connection itself: a read runs on the store as it is.
    const deciding: DatabaseConnection = {
      executeQuery: <R>(compiled: CompiledQuery) => {
        if (this.#finished) throw new Error('The call has ended: its transaction is closed.');
        const run = (connection: DatabaseConnection) => connection.executeQuery<R>(compiled);
        return this.#begun === undefined && SelectQueryNode.is(compiled.query) ? this.#root.getExecutor().provideConnection(run) : inTransaction(run);
      },
      streamQuery: () => {
        throw new Error('Streaming queries are not available inside a call.');
      },
    };
    const provider: ConnectionProvider = {
      provideConnection: (consumer) => (this.#begun === undefined ? consumer(deciding) : inTransaction(consumer)),
    };
    this.#db = new Kysely<Database>({ config: { dialect }, dialect, driver, executor: this.#root.getExecutor().withConnectionProvider(provider) });
    afterCommits.set(this.#db, []);
    afterRollbacks.set(this.#db, []);
    return this.#db;
  }

  /** True once a write has begun the transaction. */
  get begun(): boolean {
    return this.#begun !== undefined;
  }

  /** Commits what the call wrote, if it wrote anything; the transaction is closed either way. */
  async commit(): Promise<void> {
    this.#finished = true;
    if (this.#begun) {
      const trx = await this.#begun;
      try {
        await trx.commit().execute();
      } catch (error) {
        // A commit that fails (a deferred constraint, a lost connection) may leave the transaction open:
        // it is rolled back here so that its connection is given back whoever called.
        await this.rollback();
        throw error;
      }
    }
    if (!this.#db) return;
    const effects = afterCommits.get(this.#db) ?? [];
    afterCommits.delete(this.#db);
    afterRollbacks.delete(this.#db);
    for (const effect of effects) effect();
  }

  /**
   * Rolls back without waiting. A query that a deadline cut short may still hold the connection (on
   * PostgreSQL, waiting for a lock); the rollback follows it, but the caller's answer need not wait.
   */
  abandon(): void {
    void this.rollback();
  }

  /** Undoes what the call wrote, then runs its `afterRollback` effects; safe after a failed commit, and twice. */
  async rollback(): Promise<void> {
    this.#finished = true;
    const effects = this.#db ? (afterRollbacks.get(this.#db) ?? []) : [];
    if (this.#db) {
      afterCommits.delete(this.#db);
      afterRollbacks.delete(this.#db);
    }
    const trx = await this.#begun?.catch(() => undefined);
    // A rollback that fails (a dead connection) still releases the connection, and leaves nothing behind.
    if (trx && !trx.isCommitted && !trx.isRolledBack) await trx.rollback().execute().catch(() => {});
    for (const effect of effects) {
      await effect(this.#root).catch((error: unknown) => log.error({ err: error }, 'an effect after a rollback failed'));
    }
  }
}
