/**
 * Group commit: what many calls write after their handlers ran, in one transaction. A call that wrote
 * nothing itself still has to store its events (with their outbox rows) and its idempotent reply durably
 * before it answers, and on a busy server that costs a commit (a WAL write on SQLite, a flush on PostgreSQL)
 * and round trips. Writes that arrive while a group is committing wait for the next one, so a lone call
 * commits at once and a crowd of calls shares one commit. Nobody is answered before their writes are
 * committed. Writes that may trail their calls (usage records) never join a group (write-usage.ts).
 *
 * Every statement is compiled once (precompiled.ts, bulk-insert.ts). On the embedded store a whole group is
 * one message to the writer thread, run there whole or not at all. On PostgreSQL the calls in partitions with
 * no enabled endpoint (their events and stored replies) commit first by one statement (unsubscribed-writes.ts);
 * the rest of the group is one transaction. Every event of a group has the group's time.
 *
 * Should a group fail (one call's claim was taken over, say), it is rolled back and each of its writes not
 * yet committed is run again in a transaction of its own, so that only the write at fault fails.
 */
import { eventStatements, writeEventBatches, type EventBatch } from './events.js';
import type { GroupedWrite } from './grouped-write.js';
import { completeIdempotencyKeys, completionStatement } from './idempotency.js';
import { embeddedStore, storeKind, type BatchStatement, type EmbeddedStore } from './open.js';
import { forgetEndpoints } from './partition-endpoints.js';
import type { Db } from './schema.js';
import { CallTransaction } from './transaction.js';
import { writeUnsubscribed } from './unsubscribed-writes.js';

/** Thrown for writes whose idempotency claim was no longer held when their reply was to be stored. */
export class ClaimNoLongerHeld extends Error {
  override name = 'ClaimNoLongerHeld';
  constructor(keys: readonly string[]) {
    super(`The idempotency key ${keys.map((k) => `"${k}"`).join(' or ')} was taken over by a retry after its lease lapsed.`);
  }
}

/** The most writes one transaction takes; the rest wait for the next. */
const MAX_GROUP = 64;

const groups = new WeakMap<Db, CommitGroup>();

/** The one commit group of a store, shared by the calls and the trailing writes of everything that uses it. */
export function commitGroupOf(db: Db): CommitGroup {
  let group = groups.get(db);
  if (!group) groups.set(db, (group = new CommitGroup(db)));
  return group;
}

interface Waiting {
  write: GroupedWrite;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class CommitGroup {
  readonly #db: Db;
  readonly #embedded: EmbeddedStore | undefined;
  /** Groups committing at once: one on SQLite's one connection, a few on a PostgreSQL pool. */
  readonly #parallel: number;
  #waiting: Waiting[] = [];
  #committing = 0;
  #scheduled = false;

  constructor(db: Db) {
    this.#db = db;
    this.#embedded = embeddedStore(db);
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
    let group = this.#waiting.splice(0, MAX_GROUP);
    if (group.length === 0) return;
    this.#committing += 1;
    const now = new Date().toISOString();
    try {
      if (this.#embedded) await this.#runBatch(this.#embedded, group, now);
      else {
        // Those committed by the one statement are answered; what is left (should it fail, all) goes on.
        group = await this.#writeUnsubscribed(group, now);
        if (group.length > 0) await this.#runInTransaction(group, now);
      }
      for (const g of group) g.resolve();
    } catch (error) {
      // A batch of the embedded store that failed is run again write by write, whatever its size: it may have
      // failed only because an endpoint changed since the endpoints were read, whose copies go with it.
      if (this.#embedded) forgetEndpoints(this.#db);
      if (group.length === 1 && !this.#embedded) group[0]!.reject(error);
      else for (const g of group) await this.#runInTransaction([g]).then(g.resolve, g.reject);
    } finally {
      this.#committing -= 1;
      this.#schedule();
    }
  }

  /** The group as one batch of the embedded store: one message to its writer, one transaction; `now`, the events' time. */
  async #runBatch(store: EmbeddedStore, group: readonly Waiting[], now: string): Promise<void> {
    const db = this.#db;
    const batches: EventBatch[] = [];
    const statements: BatchStatement[] = [];
    for (const { write } of group) {
      if (write.events) batches.push(write.events);
      if (write.completion) statements.push({ query: completionStatement(db, write.completion), changes: 1 });
    }
    const events = eventStatements(store, db, batches, now);
    await store.writeBatch(events.statements.length > 0 ? [...events.statements, ...statements] : statements);
    events.committed?.();
  }

  /**
   * Commits the writes of the calls in partitions no endpoint subscribes to, whose claims are still held, by
   * one statement (PostgreSQL); answers them, fails those whose claims were taken over, and returns the rest
   * of the group.
   */
  async #writeUnsubscribed(group: Waiting[], now: string): Promise<Waiting[]> {
    const { subscribed, lost } = await writeUnsubscribed(this.#db, group.map(({ write }) => write), now);
    const rest: Waiting[] = [];
    group.forEach((g, i) => {
      if (subscribed.has(i)) rest.push(g);
      else if (lost.has(i)) g.reject(new ClaimNoLongerHeld([g.write.completion!.key]));
      else g.resolve();
    });
    return rest;
  }

  /** The group's writes in one transaction; `now`, the events' time, is the group's, or for a write run again alone its own. */
  async #runInTransaction(group: readonly Waiting[], now = new Date().toISOString()): Promise<void> {
    const tx = new CallTransaction(this.#db);
    try {
      const batches = group.flatMap(({ write }) => (write.events ? [write.events] : []));
      await writeEventBatches(tx.db, batches, now);
      const completions = group.flatMap(({ write }) => (write.completion ? [write.completion] : []));
      if (completions.length > 0 && !(await completeIdempotencyKeys(tx.db, completions))) throw new ClaimNoLongerHeld(completions.map((c) => c.key));
      await tx.commit();
    } catch (error) {
      await tx.rollback();
      throw error;
    }
  }
}
