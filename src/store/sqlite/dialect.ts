/**
 * The embedded SQLite store as a Kysely dialect whose writes run in a worker thread (`writer.worker.mjs`),
 * so that appending events, storing replies and committing never block the event loop. Reads outside a
 * transaction run on a read connection in this thread (WAL lets readers and the writer proceed together,
 * and a read sees every commit that finished before it began); every query inside a transaction, reads
 * included, goes to the writer so it sees the transaction's own writes.
 *
 * Statements are sent to the writer without waiting for one another, each tagged with its transaction;
 * the writer runs one transaction at a time and holds the statements of others (and those outside any) until
 * it ends, as a single connection would. Reads outside a transaction never wait. A second writer thread
 * writes the usage file's tables (usage-file.ts) beside the first, each thread handled by writer-thread.ts.
 */
import { Worker } from 'node:worker_threads';
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
import { openConnection } from './connection.worker.mjs';
import { defineDecimalFunctions } from './decimal-functions.worker.mjs';
import { StatementCache } from './statement-cache.js';
import { USAGE_PRAGMAS, USAGE_SCHEMA, type StoreFiles } from './usage-file.js';
import { WriterThread, type AttachedFile, type WriterReply } from './writer-thread.js';

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
 * Its temporary data stays in memory: each batch in a shared transaction is a savepoint, which copies every
 * page it changes into a statement journal, and past 64 KB SQLite would move that journal into a new temp
 * file (created, written and deleted, many times a second on a busy server).
 */
const PRAGMAS = ['journal_mode = WAL', 'synchronous = NORMAL', 'foreign_keys = ON', 'busy_timeout = 5000', 'wal_autocheckpoint = 10000', 'temp_store = MEMORY'];

/**
 * A statement of a batch, with what it must find for the batch to commit: the rows it changes, or the rows
 * it reads (as JSON). The writer rolls the whole batch back when one does not (`BATCH_UNMET`).
 */
export interface BatchStatement {
  query: CompiledQuery;
  changes?: number;
  rows?: string;
}

export interface BatchOptions {
  /**
   * The commit is synced to disk before the batch is answered, where the files' setting only appends it: for a
   * batch that a write to the other file will follow and must never outlive, as a power loss could make it.
   */
  synced?: boolean;
}

export class WorkerSqliteDialect implements Dialect {
  readonly #files: StoreFiles;
  #driver: WorkerSqliteDriver | undefined;

  constructor(files: StoreFiles) {
    this.#files = files;
  }

  createAdapter() {
    return new SqliteAdapter();
  }

  createDriver(): Driver {
    this.#driver = new WorkerSqliteDriver(this.#files);
    return this.#driver;
  }

  /**
   * Runs write statements as one transaction, whole or not at all, sent to the writer as one message: the
   * writer is held for the time they take to run, not for a round trip per statement (group commits use it).
   * The writer may commit it with others that reached it meanwhile (writer.worker.mjs).
   */
  async writeBatch(statements: readonly BatchStatement[]): Promise<void> {
    if (!this.#driver) throw new Error('The store is not open.');
    await this.#driver.writeBatch(statements);
  }

  /**
   * Runs write statements of the usage file's tables in one transaction of their own, on that file's writer
   * thread: however long they take, the calls' writer goes on committing (usage-file.ts).
   */
  async writeUsageBatch(statements: readonly BatchStatement[], options: BatchOptions = {}): Promise<void> {
    if (!this.#driver) throw new Error('The store is not open.');
    await this.#driver.writeUsageBatch(statements, options);
  }

  /** Whether the usage file's writer thread still runs: asked without waiting behind its batches. */
  usageWriterAlive(): boolean {
    return this.#driver?.usageWriterAlive() ?? false;
  }

  /**
   * A statement outside any transaction, sent to the writer at once, where one goes at the end of the turn
   * to travel with others: for a statement that already gathers a turn's writes (claim-batch.ts).
   */
  async writeNow(query: CompiledQuery): Promise<QueryResult<unknown>> {
    if (!this.#driver) throw new Error('The store is not open.');
    return this.#driver.write(query, 0, {}, true);
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

class WorkerSqliteDriver implements Driver {
  readonly #files: StoreFiles;
  /** The calls' writer, and the usage file's (usage-file.ts), whose long batches then hold up no call. */
  #writer: WriterThread | undefined;
  #usageWriter: WriterThread | undefined;
  #checkpointer: Checkpointer | undefined;
  #reader: StatementCache | undefined;
  #nextTransaction = 0;
  /** Why the store cannot write, once it cannot. */
  #closed: Error | undefined;

  constructor(files: StoreFiles) {
    this.#files = files;
  }

  async init(): Promise<void> {
    const attached = [{ schema: USAGE_SCHEMA, path: this.#files.usage }];
    const settings = { path: this.#files.main, attached, pragmas: [...PRAGMAS, ...USAGE_PRAGMAS] };
    // One after the other: the first creates the files and switches them to WAL.
    const writer = await WriterThread.start(settings);
    try {
      this.#usageWriter = await WriterThread.start(settings);
      // Opened after the writers, which have created the files and switched them to WAL.
      const reader = openConnection(this.#files.main, attached);
      this.#reader = new StatementCache(reader);
      reader.pragma('busy_timeout = 5000');
      defineDecimalFunctions(reader);
      this.#checkpointer = startCheckpointer(this.#files.main, attached);
    } catch (error) {
      this.#reader?.close();
      this.#reader = undefined;
      await this.#usageWriter?.terminate();
      this.#usageWriter = undefined;
      await writer.terminate();
      throw error;
    }
    this.#writer = writer;
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
    const writer = this.#writer;
    if (!writer) return;
    this.#writer = undefined;
    this.#closed = new Error('The store is closed.');
    this.#reader?.close();
    this.#reader = undefined;
    // Closed before the calls' writer, so that its connection is the last one to each file and checkpoints what is left.
    await stopCheckpointer(this.#checkpointer);
    this.#checkpointer = undefined;
    const usageWriter = this.#usageWriter;
    this.#usageWriter = undefined;
    try {
      await usageWriter?.close();
    } finally {
      // New statements are refused from here on; the writer closes once what it already holds has run.
      await writer.close();
    }
  }

  /** A read outside any transaction, on this thread's read connection. */
  read(query: CompiledQuery): QueryResult<unknown> {
    if (!this.#reader) throw new Error('The store is closed.');
    return { rows: this.#reader.prepare(query.sql).all(query.parameters as unknown[]) };
  }

  async writeBatch(statements: readonly BatchStatement[], writer = this.#writer, options: BatchOptions = {}): Promise<void> {
    const batch = statements.map(({ query, changes, rows }) => ({ sql: query.sql, parameters: query.parameters, changes, rows }));
    const reply = await this.#send(writer, options.synced ? { tx: 0, batch, synced: true } : { tx: 0, batch });
    if (reply.error) throw Object.assign(new Error(reply.error.message), { code: reply.error.code });
  }

  usageWriterAlive(): boolean {
    return this.#usageWriter?.alive ?? false;
  }

  /** A batch on the usage file's writer: its statements write only the usage file's tables. */
  async writeUsageBatch(statements: readonly BatchStatement[], options: BatchOptions = {}): Promise<void> {
    await this.writeBatch(statements, this.#usageWriter, options);
  }

  /** A statement run by the writer, in transaction `tx` (0: outside any); `now`: sent at once (writer-thread.ts). */
  async write(query: CompiledQuery, tx: number, flags: { begin?: true; end?: true } = {}, now = false): Promise<QueryResult<unknown>> {
    const reply = await this.#send(this.#writer, { tx, sql: query.sql, parameters: query.parameters, ...flags }, now);
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

  #send(writer: WriterThread | undefined, message: { tx: number; batch?: unknown; [field: string]: unknown }, now?: boolean): Promise<WriterReply> {
    if (!writer) return Promise.reject(this.#closed ?? new Error('The store is not open.'));
    return writer.send(message, now);
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
function startCheckpointer(path: string, attached: readonly AttachedFile[]): Checkpointer {
  const worker = new Worker(CHECKPOINTER, { workerData: { path, attached, intervalMs: CHECKPOINT_MS } });
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
