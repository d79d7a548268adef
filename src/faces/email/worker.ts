/**
 * The mail worker: leases messages that are due (queued or deferred, their time come), sends each and
 * settles it under its lease, in one transaction with its events. Live messages go over SMTP; test
 * messages scheduled for later are captured when their time comes, as unscheduled ones are at once. A
 * deferral is tried again on the retry schedule (offsets from the first attempt) and bounces after the
 * last. It runs in `dispatch worker`, and in a server unless `EMAIL_WORKER=off`; several share one
 * PostgreSQL queue. A worker that dies mid-send leaves its lease to lapse and another sends again, under
 * the same Message-ID.
 */
import type { StorageService } from '../storage/service.js';
import type { Partition } from '../../store/partition.js';
import { leaseDueMessages, suppressedAmong } from './store.js';
import { writeEvents, type EmittedEvent } from '../../store/events.js';
import { storeKind } from '../../store/open.js';
import type { Db } from '../../store/schema.js';
import type { EmailMessageTable } from './tables.js';
import { newId } from '../../store/secrets.js';
import { capturedMoves } from './outcomes.js';
import { onMailQueued } from './signal.js';
import { Poller } from '../../core/poller.js';
import type { MailTransport, SentOrNot } from '../../providers/smtp.js';
import { outgoing, recipientsOf } from './outgoing.js';
import { advance, type Move } from './status.js';
import { log } from '../../core/log.js';

export interface MailWorkerOptions {
  /** Retries after the first attempt, in ms from it; one attempt more is made than this lists. */
  retryOffsetsMs: number[];
  concurrency: number;
  pollMs: number;
  /** The API version of the events it writes: the one in force when they are written. */
  apiVersion: () => string;
  /** Live sending; without it live messages wait (and live sends are refused 503 at the call). */
  transport?: MailTransport;
  /**
   * Where attachments' content is read from, asked at each send (so that a storage started after this
   * module is found); undefined when this process has no storage.
   */
  storage?: () => StorageService | undefined;
  /** How long a lease lasts; by default longer than the stages of one SMTP transaction can take together. */
  leaseMs?: number;
}

export class MailWorker {
  readonly #db: Db;
  readonly #options: MailWorkerOptions;
  readonly #inFlight = new Set<Promise<void>>();
  /** The messages being sent, each with its newest lease: a send that outlives its lease and is leased again is not sent twice, and settles under the new lease. */
  readonly #leases = new Map<string, string>();
  readonly #poller: Poller;
  #unsubscribe: (() => void) | undefined;

  constructor(db: Db, options: MailWorkerOptions) {
    this.#db = db;
    this.#options = options;
    this.#poller = new Poller('mail worker', options.pollMs, () => this.#lease());
  }

  start(): void {
    this.#unsubscribe = onMailQueued(() => this.#poller.wake());
    this.#poller.start();
  }

  /** Stops leasing and waits for the sends under way; what is still queued stays queued for the next start. */
  async stop(): Promise<void> {
    this.#unsubscribe?.();
    await this.#poller.stop();
    await Promise.allSettled([...this.#inFlight]);
    this.#options.transport?.close();
  }

  /**
   * A lease outlasts a send (connect, greeting, envelope and data may each take the transport's time-out) with
   * room to settle it; the shorter it is, the sooner a message whose worker died goes to another.
   */
  #leaseMs(): number {
    return this.#options.leaseMs ?? 4 * (this.#options.transport?.timeoutMs ?? 30_000) + 5000;
  }

  /** Leases what is due, as much as there is room for, and sends it. */
  async #lease(): Promise<void> {
    let free = this.#options.concurrency - this.#inFlight.size;
    while (this.#poller.running && free > 0) {
      const now = Date.now();
      const leased = await leaseDueMessages(this.#db, {
        now: new Date(now).toISOString(),
        leaseUntil: new Date(now + this.#leaseMs()).toISOString(),
        limit: free,
        modes: this.#options.transport ? ['test', 'live'] : ['test'],
        skipLocked: storeKind(this.#db) === 'postgres',
      });
      // Stopped meanwhile: the leases lapse and another worker sends them; nothing is half sent.
      if (!this.#poller.running) break;
      for (const row of leased) {
        if (this.#leases.has(row.id)) this.#leases.set(row.id, row.leased_until!);
        else this.#track(row.id, this.#send(row));
      }
      if (leased.length < free) break;
      free = this.#options.concurrency - this.#inFlight.size;
    }
  }

  #track(id: string, work: Promise<void>): void {
    const done = work
      .catch((error: unknown) => log.error({ err: error }, 'mail worker: a send failed unexpectedly'))
      .finally(() => {
        this.#inFlight.delete(done);
        this.#leases.delete(id);
        // A freed slot may take the next due message at once.
        this.#poller.wake();
      });
    this.#inFlight.add(done);
  }

  async #send(row: EmailMessageTable): Promise<void> {
    this.#leases.set(row.id, row.leased_until!);
    const attempts = Number(row.attempts) + 1;
    const done = { attempts, leased_until: null, next_attempt_at: null };
    const p: Partition = { mode: row.mode, entityId: row.entity_id };
    const recipients = recipientsOf(row);
    // An address suppressed since the message was queued (a bounce of another message) is not tried again.
    const suppressed = await suppressedAmong(this.#db, p, recipients);
    let moves: Move[];
    if (suppressed.length > 0) {
      moves = [{ status: 'suppressed', detail: `On the suppression list: ${suppressed.join(', ')}.`, changes: { leased_until: null, next_attempt_at: null } }];
    } else if (row.mode === 'test') {
      moves = capturedMoves(recipients).map((move, i) => (i === 0 ? { ...move, changes: done } : move));
    } else {
      let outcome: SentOrNot;
      try {
        outcome = await this.#options.transport!.send(await outgoing(row, this.#options.storage?.()));
      } catch (error) {
        // Nothing reached the server (the attachments could not be read): tried again on the schedule.
        outcome = { kind: 'retry', detail: `Not sent: ${(error as Error).message}` };
      }
      moves = outcome.kind === 'retry' ? [this.#retry(row, attempts, outcome.detail)] : [movedBy(outcome, { ...done, last_error: outcome.kind === 'bounced' ? outcome.detail : null })];
    }
    await this.#settle(row, moves);
  }

  /**
   * A deferral: the next attempt on the schedule, or a bounce when the schedule is spent. The schedule's
   * offsets are from the first attempt; the wait is counted from now, so that a backlog does not spend it.
   */
  #retry(row: EmailMessageTable, attempts: number, detail: string): Move {
    const offsets = this.#options.retryOffsetsMs;
    const offset = offsets[attempts - 1];
    if (offset === undefined) {
      return { status: 'bounced', detail: `Gave up after ${attempts} attempts: ${detail}`, changes: { attempts, leased_until: null, next_attempt_at: null, last_error: detail } };
    }
    const next = new Date(Date.now() + offset - (offsets[attempts - 2] ?? 0)).toISOString();
    return { status: 'deferred', detail, changes: { attempts, leased_until: null, next_attempt_at: next, last_error: detail } };
  }

  /** The moves under the message's lease, with their events, in one transaction; nothing if the lease was lost. */
  async #settle(row: EmailMessageTable, moves: Move[]): Promise<void> {
    const p: Partition = { mode: row.mode, entityId: row.entity_id };
    await this.#db.transaction().execute(async (trx) => {
      const events: EmittedEvent[] = [];
      const emit = (type: string, data: unknown) => events.push({ id: newId('evt'), type, data });
      let current: EmailMessageTable | undefined = row;
      for (const [i, move] of moves.entries()) {
        // Only the first move is under the lease (the newest, if it was leased again meanwhile): it ends it.
        current = await advance(trx, current, move, emit, this.#options.storage?.(), i === 0 ? (this.#leases.get(row.id) ?? row.leased_until!) : undefined);
        if (!current) return;
      }
      if (events.length > 0) await writeEvents(trx, { mode: p.mode, entityId: p.entityId, apiVersion: this.#options.apiVersion(), requestId: newId('req') }, events);
    });
  }
}

/** The status move of a send the server answered for good: sent or bounced, with the recipients it refused. */
function movedBy(outcome: Exclude<SentOrNot, { kind: 'retry' }>, changes: Move['changes']): Move {
  return { status: outcome.kind, detail: outcome.detail, changes, ...(outcome.suppress ? { suppress: outcome.suppress } : {}) };
}
