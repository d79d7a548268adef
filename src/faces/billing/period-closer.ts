/**
 * The period closer: closes the periods of subscriptions that have ended into draft invoices, and finalizes
 * drafts once their grace window for late usage (`BILLING_GRACE_SECONDS`) is over. It runs in every server
 * and in `dispatch worker` (`BILLING_CLOSER=off` turns it off in a server); several may share one
 * PostgreSQL store, as each close and each finalization is a conditional UPDATE that one transaction wins.
 * Each runs in its own transaction with the events it sends, through the outbox. A subscription backdated
 * by several periods is caught up one period per transaction.
 */
import type { Partition } from '../../store/partition.js';
import { dueDrafts, dueSubscriptions } from './store.js';
import { writeEvents, type EmittedEvent } from '../../store/events.js';
import type { Db } from '../../store/schema.js';
import { newId } from '../../store/secrets.js';
import { Poller } from '../../core/poller.js';
import { closePeriod, finalizeInvoice, type Emit } from './invoices.js';
import { log } from '../../core/log.js';
import type { UsageService } from '../usage/service.js';

export interface PeriodCloserOptions {
  /** How long a draft waits for late usage after its period ends. */
  graceMs: number;
  /** How often to look for what is due. */
  intervalMs: number;
  /** The API version the events it sends are written in: the one in force when they are written. */
  apiVersion: () => string;
  /** The usage module's service, which invoices are rated from (looked up when a pass runs: modules start in turn). */
  usage: () => UsageService;
}

/** At most this many closes or finalizations per kind and pass, so that one pass stays short. */
const BATCH = 100;

export class PeriodCloser {
  readonly #db: Db;
  readonly #options: PeriodCloserOptions;
  readonly #poller: Poller;
  #stopped = false;

  constructor(db: Db, options: PeriodCloserOptions) {
    this.#db = db;
    this.#options = options;
    this.#poller = new Poller('billing period closer', options.intervalMs, async () => void (await this.pass()));
  }

  start(): void {
    this.#poller.start();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#poller.stop();
  }

  /** One pass: closes every period ended by `now`, then finalizes every draft past its grace window. */
  async pass(now = Date.now()): Promise<{ closed: number; finalized: number }> {
    let closed = 0;
    let finalized = 0;
    const at = new Date(now).toISOString();
    // Round after round while periods close (a subscription backdated by several periods closes one a round),
    // each round paged by id so that one that cannot be closed (logged) does not hold up the others.
    for (let closing = true; closing && !this.#stopped; ) {
      closing = false;
      for (let after = ''; !this.#stopped; ) {
        const due = await dueSubscriptions(this.#db, at, BATCH, after);
        for (const subscription of due) {
          const p = { mode: subscription.mode, entityId: subscription.entity_id };
          if (await this.#attempt(`closing ${subscription.id}`, p, (db, emit) => closePeriod(db, p, this.#options.usage(), subscription, emit, { now }))) {
            closed++;
            closing = true;
          }
        }
        if (due.length < BATCH) break;
        after = due.at(-1)!.id;
      }
    }
    const cutoff = new Date(now - this.#options.graceMs).toISOString();
    // Paged by id, so that a draft that cannot be finalized (logged) does not hold up the ones after it.
    for (let after = ''; !this.#stopped; ) {
      const drafts = await dueDrafts(this.#db, cutoff, BATCH, after);
      for (const draft of drafts) {
        if (this.#stopped) break;
        const p = { mode: draft.mode, entityId: draft.entity_id };
        if (await this.#attempt(`finalizing ${draft.id}`, p, (db, emit) => finalizeInvoice(db, p, this.#options.usage(), draft, emit, now))) finalized++;
      }
      if (drafts.length < BATCH) break;
      after = drafts.at(-1)!.id;
    }
    return { closed, finalized };
  }

  /**
   * Runs one move and writes the events it sent, in one transaction; undefined when another process won it,
   * or when it failed (logged: one subscription that cannot be billed must not hold up the others).
   */
  async #attempt<T>(what: string, p: Partition, move: (db: Db, emit: Emit<string>) => Promise<T | undefined>): Promise<T | undefined> {
    try {
      return await this.#db.transaction().execute(async (trx) => {
        const events: EmittedEvent[] = [];
        const result = await move(trx, (type, data) => events.push({ id: newId('evt'), type, data }));
        if (events.length > 0) await writeEvents(trx, { mode: p.mode, entityId: p.entityId, apiVersion: this.#options.apiVersion(), requestId: newId('req') }, events);
        return result;
      });
    } catch (error) {
      log.error({ err: error }, `billing: ${what} failed`);
      return undefined;
    }
  }
}
