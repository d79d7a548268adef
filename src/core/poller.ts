/**
 * Runs a background pass now and then: every `intervalMs` after the last one ended, or at once when woken
 * (a commit in this process queued work); never two passes at a time (a wake during a pass runs another
 * right after it). A failed pass is logged and the next one comes as usual. Its timers never keep a process
 * alive on their own; `stop` waits for the pass under way. The workers of the queues (mail, billing periods,
 * storage) each own one.
 */
import { log } from './log.js';
export class Poller {
  readonly #pass: () => Promise<void>;
  readonly #intervalMs: number;
  readonly #name: string;
  #running = false;
  #timer: NodeJS.Timeout | undefined;
  #passing: Promise<void> | undefined;
  #again = false;

  constructor(name: string, intervalMs: number, pass: () => Promise<void>) {
    this.#name = name;
    this.#intervalMs = intervalMs;
    this.#pass = pass;
  }

  get running(): boolean {
    return this.#running;
  }

  start(): void {
    this.#running = true;
    this.#schedule(0);
  }

  /** Runs a pass now rather than at the next interval. */
  wake(): void {
    if (this.#running) this.#schedule(0);
  }

  async stop(): Promise<void> {
    this.#running = false;
    clearTimeout(this.#timer);
    await this.#passing;
  }

  #schedule(ms: number): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      if (this.#passing) this.#again = true;
      else this.#passing = this.#run().finally(() => (this.#passing = undefined));
    }, ms);
    this.#timer.unref();
  }

  async #run(): Promise<void> {
    this.#again = false;
    try {
      await this.#pass();
    } catch (error) {
      log.error({ err: error }, `${this.#name} failed`);
    } finally {
      if (this.#running) this.#schedule(this.#again ? 0 : this.#intervalMs);
    }
  }
}
