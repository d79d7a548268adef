/**
 * The webhook delivery worker. It leases due deliveries from the store, sends each (signed) to its
 * endpoint, and settles it: a 2xx answer succeeds; a 410 disables the endpoint; anything else is retried on
 * the mode's schedule (offsets after the first attempt, stretched by up to 10% of jitter so that receivers
 * are not hit by every retry at once, and never before a `Retry-After`), until the last attempt marks the
 * delivery failed (it can be replayed). A worker runs inside the server by default and in `dispatch worker`
 * processes (index.ts); any number of them may share one PostgreSQL store.
 *
 * Delivery is at least once: a worker that dies mid-send leaves its lease to lapse, and another sends again.
 */
import { Poller } from '../../core/poller.js';
import { onDeliveriesQueued } from '../../store/events.js';
import type { Db, WebhookDeliveryTable } from '../../store/schema.js';
import { storeKind } from '../../store/open.js';
import { leaseDueDeliveries, loadDeliveries, settleDelivery, type DeliveryJob, type Settlement } from './store.js';
import type { WebhookSettings } from './settings.js';
import { deliveryHeaders } from '../../core/webhook-signing.js';
import { eventBody, signingSecrets } from './message.js';
import { postWebhook, type AttemptOutcome } from '../../core/webhook-post.js';
import { log } from '../../core/log.js';

const JITTER = 0.1;

/** What the worker reads of the module's settings (whether a server runs it is decided before). */
export type DeliverySettings = Omit<WebhookSettings, 'worker'>;

export class WebhookWorker {
  readonly #db: Db;
  readonly #config: DeliverySettings;
  readonly #random: () => number;
  readonly #inFlight = new Set<Promise<void>>();
  readonly #poller: Poller;
  #unsubscribe: (() => void) | undefined;

  constructor(db: Db, config: DeliverySettings, options: { random?: () => number } = {}) {
    this.#db = db;
    this.#config = config;
    this.#random = options.random ?? Math.random;
    this.#poller = new Poller('webhook worker', config.pollMs, () => this.#lease());
  }

  start(): void {
    // Deliveries queued by calls in this process are sent at once; those of other processes at the next poll.
    this.#unsubscribe = onDeliveriesQueued(() => this.wake());
    this.#poller.start();
  }

  /** Looks for due deliveries now rather than at the next poll. */
  wake(): void {
    this.#poller.wake();
  }

  /** Stops leasing and waits for the poll under way and the deliveries being sent. */
  async stop(): Promise<void> {
    this.#unsubscribe?.();
    await this.#poller.stop();
    await Promise.allSettled([...this.#inFlight]);
  }

  /** Leases due deliveries, as many as there is room for, and sends them. */
  async #lease(): Promise<void> {
    let free = this.#config.concurrency - this.#inFlight.size;
    while (this.#poller.running && free > 0) {
      const now = Date.now();
      const ids = await leaseDueDeliveries(this.#db, {
        now: new Date(now).toISOString(),
        // The lease outlasts the longest attempt with room to settle it.
        leaseUntil: new Date(now + 2 * this.#config.timeoutMs + 1000).toISOString(),
        limit: free,
        skipLocked: storeKind(this.#db) === 'postgres',
      });
      const jobs = await loadDeliveries(this.#db, ids);
      // Stopped meanwhile: the leases lapse and the deliveries go to the next worker, nothing is half sent.
      if (!this.#poller.running) break;
      for (const job of jobs) this.#track(this.#deliver(job));
      if (ids.length < free) break;
      free = this.#config.concurrency - this.#inFlight.size;
    }
  }

  #track(work: Promise<void>): void {
    const done = work
      .catch((error: unknown) => log.error({ err: error }, 'webhook worker: delivery failed unexpectedly'))
      .finally(() => {
        this.#inFlight.delete(done);
        // A freed slot may take the next due delivery at once.
        this.wake();
      });
    this.#inFlight.add(done);
  }

  async #deliver({ delivery, event, endpoint }: DeliveryJob): Promise<void> {
    const base = { leasedUntil: delivery.leased_until!, firstAttemptAt: delivery.first_attempt_at, nextAttemptAt: delivery.next_attempt_at };
    if (endpoint.status !== 'enabled') {
      await settleDelivery(this.#db, delivery, { ...base, status: 'failed', lastStatus: delivery.last_status, lastError: 'the endpoint is disabled' });
      return;
    }
    const body = eventBody(event);
    const sentAt = new Date();
    const headers = deliveryHeaders(signingSecrets(endpoint, sentAt), event.id, sentAt, body);
    const outcome = await postWebhook(endpoint.url, headers, body, {
      mode: delivery.mode,
      timeoutMs: this.#config.timeoutMs,
      allowPrivateUrls: this.#config.allowPrivateUrls,
    });
    await settleDelivery(this.#db, delivery, this.#settlement(delivery, sentAt, outcome));
  }

  /** The delivery's state after an attempt sent at `sentAt`. */
  #settlement(delivery: WebhookDeliveryTable, sentAt: Date, outcome: AttemptOutcome): Settlement {
    const attempt = delivery.attempts + 1;
    const succeeded = outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300;
    const firstAttemptAt = delivery.first_attempt_at ?? sentAt.toISOString();
    const lastError = succeeded ? null : (outcome.error ?? `the receiver answered ${outcome.status}`);
    const settled = {
      leasedUntil: delivery.leased_until!,
      attempt: {
        delivery_id: delivery.id,
        attempt,
        started_at: sentAt.toISOString(),
        duration_ms: outcome.durationMs,
        response_status: outcome.status ?? null,
        error: outcome.error ?? null,
        succeeded: succeeded ? 1 : 0,
      },
      firstAttemptAt,
      lastStatus: outcome.status ?? null,
      lastError,
      nextAttemptAt: delivery.next_attempt_at,
    };
    if (succeeded) return { ...settled, status: 'succeeded' };
    if (outcome.status === 410) return { ...settled, status: 'failed', disableEndpoint: true };
    const offsets = this.#config.retryOffsetsMs[delivery.mode];
    const offset = offsets[attempt - 1];
    if (offset === undefined) return { ...settled, status: 'failed' };
    const scheduled = Date.parse(firstAttemptAt) + offset * (1 + JITTER * this.#random());
    const next = Math.max(scheduled, Date.now() + (outcome.retryAfterMs ?? 0));
    return { ...settled, status: 'pending', nextAttemptAt: new Date(next).toISOString() };
  }
}
