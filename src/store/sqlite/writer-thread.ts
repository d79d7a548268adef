/**
 * One writer thread of the embedded store (`writer.worker.mjs`), as the main thread sees it: messages posted
 * in bundles, replies matched to what waits for them, and a thread that dies failing what waited on it and
 * every write after, at once, rather than leaving calls hanging. The store keeps two: the calls' writer and
 * the usage file's (usage-file.ts).
 */
import { Worker } from 'node:worker_threads';
import { fromProgram } from '../../package-root.js';

/** The writer thread's module: plain JavaScript, the same file from the sources and in the compiled program. */
const WRITER = fromProgram('src', 'store', 'sqlite', 'writer.worker.mjs');

/** A file attached to every connection of the store, under its schema name. */
export interface AttachedFile {
  schema: string;
  path: string;
}

export interface WriterSettings {
  path: string;
  attached: readonly AttachedFile[];
  pragmas: readonly string[];
}

export interface WriterReply {
  id: number;
  rows: unknown[];
  changes?: number;
  lastInsertRowid?: number | bigint;
  error?: { message: string; code?: string };
}

export class WriterThread {
  #worker: Worker | undefined;
  readonly #pending = new Map<number, { resolve: (reply: WriterReply) => void; reject: (error: Error) => void }>();
  #nextId = 0;
  /** Messages not yet posted, in the order they were sent. */
  #outbox: object[] = [];
  #flushScheduled = false;
  /** Why the thread is gone, once it is. */
  #dead: Error | undefined;
  #closing = false;

  /** Starts a writer thread and waits until its connection is open. */
  static async start(settings: WriterSettings): Promise<WriterThread> {
    const worker = new Worker(WRITER, { workerData: settings });
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
    return new WriterThread(worker);
  }

  private constructor(worker: Worker) {
    worker.on('message', (replies: WriterReply[]) => {
      for (const reply of replies) {
        const waiting = this.#pending.get(reply.id);
        this.#pending.delete(reply.id);
        waiting?.resolve(reply);
      }
      if (this.#pending.size === 0 && !this.#closing) worker.unref();
    });
    // The store answers reads still, and /readyz reports it unavailable (server/ops-routes.ts).
    const dead = (error: Error) => {
      this.#worker = undefined;
      this.#dead ??= error;
      for (const waiting of this.#pending.values()) waiting.reject(error);
      this.#pending.clear();
      this.#outbox = [];
    };
    // Named as a writer that exited, whatever ended it: a store that cannot write is unavailable (store/unavailable.ts).
    const died = (error: Error) => dead(new Error(`The SQLite writer thread exited: ${error.message}`, { cause: error }));
    worker.on('error', died);
    worker.on('messageerror', died);
    worker.on('exit', (code) => dead(new Error(`The SQLite writer thread exited (${code}).`)));
    // Like a plain connection, the store keeps the process alive only while a statement is under way.
    worker.unref();
    this.#worker = worker;
  }

  /** False once the thread has died or been closed. */
  get alive(): boolean {
    return this.#worker !== undefined;
  }

  /**
   * Sends a message to the thread. Messages go in bundles, one `postMessage` for all that are ready, as each
   * costs a wake-up of the thread. A statement outside any transaction (an idempotency claim, say) waits for
   * the end of this turn of the event loop, so that those of many requests travel together, unless `now`
   * says it gathers them already; a transaction's statements and batches go at once, with whatever waits
   * before them, since the thread waits for them.
   */
  send(message: { tx: number; batch?: unknown; [field: string]: unknown }, now = false): Promise<WriterReply> {
    const worker = this.#worker;
    if (!worker) return Promise.reject(this.#dead ?? new Error('The store is not open.'));
    return this.#post(worker, message, now || message.tx !== 0 || message.batch !== undefined);
  }

  /** Refuses new messages from here on and closes the connection once what the thread holds has run. */
  async close(): Promise<void> {
    const worker = this.#worker;
    if (!worker) return;
    this.#worker = undefined;
    this.#dead = new Error('The store is closed.');
    this.#closing = true;
    worker.ref();
    await this.#post(worker, { close: true });
    await worker.terminate();
  }

  /** Ends the thread at once (a store that failed to open). */
  async terminate(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    await worker?.terminate();
  }

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
