/**
 * The embedded SQLite store as a Kysely dialect whose writes run in a worker thread (`writer.worker.mjs`),
 * so that appending events, storing replies and committing never block the event loop. Reads outside a
 * transaction run on a read connection in this thread (WAL lets readers and the writer proceed together,
 * and a read sees every commit that finished before it began); every query inside a transaction, reads
 * included, goes to the writer so it sees the transaction's own writes.
 *
 * Statements are sent to the writer without waiting for one another, each tagged with its transaction;
 * the writer runs one transaction at a time and holds the statements of others (and those outside any) until
 * it ends, as a single connection would. Reads outside a transaction never wait.
 */
import { Worker } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { fromProgram } from '../../package-root.js';
import {
  CompiledQuery,
  SelectQueryNode,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
} from 'kysely';
import { defineDecimalFunctions } from './decimal-functions.worker.mjs';
import { StatementCache } from './statement-cache.js';

/** The writer thread's module: plain JavaScript, the same file from the sources and in the compiled program. */
const WRITER = fromProgram('src', 'store', 'sqlite', 'writer.worker.mjs');
/** The WAL checkpointer's module (`checkpoint.worker.mjs`), and how often it runs. */
const CHECKPOINTER = fromProgram('src', 'store', 'sqlite', 'checkpoint.worker.mjs');
const CHECKPOINT_MS = 250;

interface Checkpointer {
  worker: Worker;
  exited: Promise<void>;
}
/**
 * The writer's connection. Its own checkpoints come only past 10,000 WAL pages (about 40 MB), should the
 * checkpointer fall behind or stop: a checkpoint run in a commit holds every call waiting on the writer.
 */
const PRAGMAS = ['journal_mode = WAL', 'synchronous = NORMAL', 'foreign_keys = ON', 'busy_timeout = 5000', 'wal_autocheckpoint = 10000'];

/**
 * A statement of a batch, with what it must find for the batch to commit: the rows it changes, or the rows
 * it reads (as JSON). The writer rolls the whole batch back when one does not (`BATCH_UNMET`).
 */
export interface BatchStatement {
  query: CompiledQuery;
  changes?: number;
  rows?: string;
}

export class WorkerSqliteDialect implements Dialect {
  readonly #path: string;
  #driver: WorkerSqliteDriver | undefined;

  constructor(path: string) {
    this.#path = path;
  }

  createAdapter() {
    return new SqliteAdapter();
  }

  createDriver(): Driver {
    this.#driver = new WorkerSqliteDriver(this.#path);
    return this.#driver;
  }

  /**
   * Runs write statements in one transaction of their own, sent to the writer as one message: the writer is
   * held for the time they take to run, not for a round trip per statement (group commits use it).
   */
  async writeBatch(statements: readonly BatchStatement[]): Promise<void> {
    if (!this.#driver) throw new Error('The store is not open.');
    await this.#driver.writeBatch(statements);
  }

  /** A read on this thread's read connection, at once: it sees every commit that finished before it. */
  read(query: CompiledQuery): unknown[] {
    if (!this.#driver) throw new Error('The store is not open.');
    return this.#driver.read(query).rows;
  }

  createIntrospector(db: Kysely<any>) {
    return new SqliteIntrospector(db);
  }

  createQueryCompiler() {
    return new SqliteQueryCompiler();
  }
}

interface WriterReply {
  id: number;
  rows: unknown[];
  changes?: number;
  lastInsertRowid?: number | bigint;
  error?: { message: string; code?: string };
}

class WorkerSqliteDriver implements Driver {
  readonly #path: string;
  #worker: Worker | undefined;
  #checkpointer: Checkpointer | undefined;
  #reader: StatementCache | undefined;
  readonly #pending = new Map<number, { resolve: (reply: WriterReply) => void; reject: (error: Error) => void }>();
  #nextId = 0;
  /** Messages not yet posted to the writer, in the order they were sent. */
  #outbox: object[] = [];
  #flushScheduled = false;
  #nextTransaction = 0;
  /** Why the writer is gone, once it is. */
  #dead: Error | undefined;
  #closing = false;

  constructor(path: string) {
    this.#path = path;
  }

  async init(): Promise<void> {
    const worker = new Worker(WRITER, { workerData: { path: this.#path, pragmas: PRAGMAS } });
    await new Promise<void>((resolve, reject) => {
      const failed = (error: Error) => (settle(), reject(error));
      const exited = (code: number) => failed(new Error(`The SQLite writer thread exited (${code}) before it was ready.`));
      const ready = () => (settle(), resolve());
      // Only these listeners go: the worker keeps listeners of its own (they ref and unref its port).
      const settle = () => (worker.off('error', failed), worker.off('exit', exited), worker.off('message', ready));
      worker.once('error', failed);
      worker.once('exit', exited);
      worker.once('message', ready);
    });
    worker.on('message', (replies: WriterReply[]) => {
      for (const reply of replies) {
        const waiting = this.#pending.get(reply.id);
        this.#pending.delete(reply.id);
        waiting?.resolve(reply);
      }
      if (this.#pending.size === 0 && !this.#closing) worker.unref();
    });
    // A writer that dies fails what waited on it and every write after, at once, rather than leaving calls
    // hanging: the store answers reads still, and /readyz reports it unavailable.
    const dead = (error: Error) => {
      this.#worker = undefined;
      this.#dead ??= error;
      for (const waiting of this.#pending.values()) waiting.reject(error);
      this.#pending.clear();
      this.#outbox = [];
    };
    worker.on('error', dead);
    worker.on('messageerror', dead);
    worker.on('exit', (code) => dead(new Error(`The SQLite writer thread exited (${code}).`)));
    // Like a plain connection, the store keeps the process alive only while a statement is under way.
    worker.unref();
    this.#worker = worker;
    try {
      // Opened after the writer, which has created the file and switched it to WAL.
      const reader = new SQLite(this.#path);
      reader.pragma('busy_timeout = 5000');
      defineDecimalFunctions(reader);
      this.#reader = new StatementCache(reader);
      this.#checkpointer = startCheckpointer(this.#path);
    } catch (error) {
      this.#worker = undefined;
      await worker.terminate();
      throw error;
    }
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new WorkerConnection(this);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const held = connection as WorkerConnection;
    const tx = ++this.#nextTransaction;
    await this.write(CompiledQuery.raw('begin'), tx, { begin: true });
    held.transaction = tx;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await this.#end(connection as WorkerConnection, 'commit');
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await this.#end(connection as WorkerConnection, 'rollback');
  }

  async releaseConnection(): Promise<void> {
    // Nothing to give back: a transaction ends with its own commit or rollback (CallTransaction rolls back
    // after a failed commit), and statements outside transactions hold nothing.
  }

  async destroy(): Promise<void> {
    const worker = this.#worker;
    if (!worker) return;
    this.#reader?.close();
    this.#reader = undefined;
    // Closed before the writer, so that the writer's connection is the last one and checkpoints what is left.
    await stopCheckpointer(this.#checkpointer);
    this.#checkpointer = undefined;
    // New statements are refused from here on; the writer closes once what it already holds has run.
    this.#worker = undefined;
    this.#dead = new Error('The store is closed.');
    this.#closing = true;
    worker.ref();
    await this.#post(worker, { close: true });
    await worker.terminate();
  }

  /** A read outside any transaction, on this thread's read connection. */
  read(query: CompiledQuery): QueryResult<unknown> {
    if (!this.#reader) throw new Error('The store is closed.');
    return { rows: this.#reader.prepare(query.sql).all(query.parameters as unknown[]) };
  }

  async writeBatch(statements: readonly BatchStatement[]): Promise<void> {
    const batch = statements.map(({ query, changes, rows }) => ({ sql: query.sql, parameters: query.parameters, changes, rows }));
    const reply = await this.#send({ tx: 0, batch });
    if (reply.error) throw Object.assign(new Error(reply.error.message), { code: reply.error.code });
  }

  /** A statement run by the writer, in transaction `tx` (0: outside any). */
  async write(query: CompiledQuery, tx: number, flags: { begin?: true; end?: true } = {}): Promise<QueryResult<unknown>> {
    const reply = await this.#send({ tx, sql: query.sql, parameters: query.parameters, ...flags });
    if (reply.error) throw Object.assign(new Error(reply.error.message), { code: reply.error.code });
    return {
      rows: reply.rows,
      ...(reply.changes !== undefined ? { numAffectedRows: BigInt(reply.changes) } : {}),
      ...(reply.lastInsertRowid !== undefined ? { insertId: BigInt(reply.lastInsertRowid) } : {}),
    };
  }

  async #end(connection: WorkerConnection, command: 'commit' | 'rollback'): Promise<void> {
    try {
      await this.write(CompiledQuery.raw(command), connection.transaction, { end: true });
      connection.transaction = 0;
    } catch (error) {
      // A failed commit may leave the transaction open: the rollback that follows must name it. A failed
      // rollback ends it all the same (the writer clears it).
      if (command === 'rollback') connection.transaction = 0;
      throw error;
    }
  }

  #send(message: { tx: number; batch?: unknown; [field: string]: unknown }): Promise<WriterReply> {
    const worker = this.#worker;
    if (!worker) return Promise.reject(this.#dead ?? new Error('The store is not open.'));
    return this.#post(worker, message, message.tx !== 0 || message.batch !== undefined);
  }

  /**
   * Messages go to the writer in bundles, one `postMessage` for all that are ready, as each costs a wake-up
   * of the writer thread. A statement outside any transaction (an idempotency claim, say) waits for the end
   * of this turn of the event loop, so that those of many requests travel together; a transaction's
   * statements and batches go at once (`now`), with whatever waits before them, since the writer waits for
   * them.
   */
  #post(worker: Worker, message: object, now = true): Promise<WriterReply> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      if (this.#pending.size === 0) worker.ref();
      this.#pending.set(id, { resolve, reject });
      this.#outbox.push({ id, ...message });
      if (now) this.#flush(worker);
      else if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        setImmediate(() => {
          this.#flushScheduled = false;
          this.#flush(worker);
        });
      }
    });
  }

  #flush(worker: Worker): void {
    if (this.#outbox.length === 0) return;
    const bundle = this.#outbox;
    this.#outbox = [];
    worker.postMessage(bundle);
  }
}

class WorkerConnection implements DatabaseConnection {
  readonly #driver: WorkerSqliteDriver;
  /** The writer's id of the transaction this connection has open, or 0. */
  transaction = 0;

  constructor(driver: WorkerSqliteDriver) {
    this.#driver = driver;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.transaction === 0 && SelectQueryNode.is(query.query)) return this.#driver.read(query) as QueryResult<R>;
    return this.#driver.write(query, this.transaction) as Promise<QueryResult<R>>;
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('Streaming queries are not supported by the embedded store.');
  }
}

/** The checkpointer's thread; it never keeps the process alive, and one that fails leaves the writer's checkpoints. */
function startCheckpointer(path: string): Checkpointer {
  const worker = new Worker(CHECKPOINTER, { workerData: { path, intervalMs: CHECKPOINT_MS } });
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.on('error', () => {});
  worker.unref();
  return { worker, exited };
}

/** Closes the checkpointer's connection and waits for its thread to end (at once if it already has). */
async function stopCheckpointer(checkpointer: Checkpointer | undefined): Promise<void> {
  if (!checkpointer) return;
  // Referenced again, so that the process waits for it to end.
  checkpointer.worker.ref();
  checkpointer.worker.postMessage({ close: true });
  await checkpointer.exited;
}
