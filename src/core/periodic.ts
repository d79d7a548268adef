/**
 * Background work that runs a pass every `intervalMs` (the first after one interval, not at start): the
 * retention purges, every `PURGE_INTERVAL_MS`, and the event log's filler. A failed pass is logged under
 * `name`; the next comes at the next interval. Its timer never keeps a process alive on its own; stopping
 * waits for the pass under way.
 */
import type { BackgroundWork } from './face-module.js';
import { log } from './log.js';

/** How often a retention purge runs. */
export const PURGE_INTERVAL_MS = 10 * 60_000;

/** The instant `days` days ago, in ISO form: a retention's cut-off. */
export const daysAgo = (days: number): string => new Date(Date.now() - days * 86_400_000).toISOString();

export function periodic(name: string, intervalMs: number, pass: () => Promise<void>): BackgroundWork {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const run = () => {
    // A pass that outlasts the interval is not run over by the next.
    running ??= pass()
      .catch((error: unknown) => log.error({ err: error }, `${name} failed`))
      .finally(() => (running = undefined));
  };
  return {
    start: () => void (timer = setInterval(run, intervalMs).unref()),
    // The store a pass writes to is closed once the work has stopped.
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
