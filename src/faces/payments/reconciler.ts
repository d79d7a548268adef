/**
 * The payments reconciler: settles the confirmations and refunds that calls left in flight at the processor
 * (recorded `processing`, then cut short, and not retried under their idempotency key), so that no charge or
 * refund the processor may have made stays unknown here (docs/faces/payments.md § Payments). It asks the processor again
 * with the very request and key of the call, gets its first answer (or makes the request, if the first
 * never arrived) and settles with it, in a transaction of its own with the events it sends. What the
 * processor still does not answer stays in flight for the next pass. It runs in every server and in
 * `dispatch worker` (`PAYMENTS_RECONCILER=off` turns it off in a server); several may share one PostgreSQL
 * store, as each settlement is a conditional move out of `processing` that one transaction wins.
 */
import type { Providers } from '../../providers/index.js';
import { log } from '../../core/log.js';
import { Poller } from '../../core/poller.js';
import type { Partition } from '../../store/partition.js';
import { writeEvents, type EmittedEvent } from '../../store/events.js';
import { getIntent, processingIntents, processingRefunds } from './store.js';
import type { Db } from '../../store/schema.js';
import type { PaymentIntentTable, PaymentRefundTable } from './tables.js';
import { newId } from '../../store/secrets.js';
import { askToConfirm, settleConfirmation } from './confirmations.js';
import { processorFor } from './processing.js';
import { askToRefund, settleRefund } from './refunds.js';

export interface PaymentReconcilerOptions {
  /** How long a charge or refund stays in flight before the reconciler asks: past the longest call time-out, so never while its call still waits. */
  graceMs: number;
  /** How often to look. */
  intervalMs: number;
  /** The API version the events it sends are written in: the version in force when it writes them. */
  apiVersion: () => string;
}

/** At most this many of each kind per round, so that one page stays short. */
const BATCH = 100;

type Emit = (type: string, data: unknown) => void;

export class PaymentReconciler {
  readonly #db: Db;
  readonly #processors: Providers['payments'];
  readonly #options: PaymentReconcilerOptions;
  readonly #poller: Poller;
  #stopped = false;

  constructor(db: Db, processors: Providers['payments'], options: PaymentReconcilerOptions) {
    this.#db = db;
    this.#processors = processors;
    this.#options = options;
    this.#poller = new Poller('payments reconciler', options.intervalMs, async () => void (await this.pass()));
  }

  start(): void {
    this.#poller.start();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#poller.stop();
  }

  /** One pass: settles what has been in flight since `graceMs` before `now`; returns how many of each it settled. */
  async pass(now = Date.now()): Promise<{ intents: number; refunds: number }> {
    const before = new Date(now - this.#options.graceMs).toISOString();
    const intents = await this.#each((after) => processingIntents(this.#db, before, BATCH, after), (row) => this.#intent(row));
    const refunds = await this.#each((after) => processingRefunds(this.#db, before, BATCH, after), (row) => this.#refund(row));
    return { intents, refunds };
  }

  /** Settles every row the pages hold, paged by id so that one the processor does not answer holds up no other. */
  async #each<T extends { id: string }>(page: (after: string) => Promise<T[]>, settle: (row: T) => Promise<boolean>): Promise<number> {
    let settled = 0;
    for (let after = ''; !this.#stopped; ) {
      const rows = await page(after);
      for (const row of rows) {
        if (this.#stopped) break;
        if (await settle(row)) settled++;
      }
      if (rows.length < BATCH) break;
      after = rows.at(-1)!.id;
    }
    return settled;
  }

  async #intent(row: PaymentIntentTable): Promise<boolean> {
    const p = { mode: row.mode, entityId: row.entity_id };
    return this.#attempt(`intent ${row.id}`, p, async () => {
      const auth = await askToConfirm(this.#processor(p), p, row);
      return (db, emit) => settleConfirmation(db, p, row, auth, emit);
    });
  }

  async #refund(row: PaymentRefundTable): Promise<boolean> {
    const p = { mode: row.mode, entityId: row.entity_id };
    return this.#attempt(`refund ${row.id}`, p, async () => {
      const payment = (await getIntent(this.#db, p, row.intent_id))!;
      const processorId = await askToRefund(this.#processor(p), p, row, payment.processor_id!);
      return (db, emit) => settleRefund(db, p, row, processorId, emit);
    });
  }

  #processor(p: Partition) {
    const processor = processorFor(this.#processors, p.mode);
    if (!processor) throw new Error('No live payment processor is configured (STRIPE_API_KEY): it stays in flight.');
    return processor;
  }

  /**
   * Asks the processor, then settles with its answer and writes the events sent, in one transaction. False
   * when the processor gave no answer or the settling failed (logged: the next pass asks again).
   */
  async #attempt(what: string, p: Partition, ask: () => Promise<(db: Db, emit: Emit) => Promise<unknown>>): Promise<boolean> {
    try {
      const settle = await ask();
      await this.#db.transaction().execute(async (trx) => {
        const events: EmittedEvent[] = [];
        await settle(trx, (type, data) => events.push({ id: newId('evt'), type, data }));
        if (events.length > 0) await writeEvents(trx, { mode: p.mode, entityId: p.entityId, apiVersion: this.#options.apiVersion(), requestId: newId('req') }, events);
      });
      return true;
    } catch (error) {
      log.warn({ err: error }, `payments: ${what} stays in flight at the processor, unsettled; the next pass asks again`);
      return false;
    }
  }
}
