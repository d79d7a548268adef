/**
 * The server's metrics, loaded on first use: the registry (prometheus.ts) is built at the first observed call
 * or the first scrape of `GET /metrics`, not at start, because prom-client and its process collectors would
 * otherwise add ~20 ms to every start, all of it before the first call could be answered. Calls observed
 * while it loads wait in order and are counted once it has.
 */
import { log } from '../core/log.js';
import type { CallMetrics } from './prometheus.js';

type Observation = Parameters<CallMetrics['observeCall']>;

export interface Metrics {
  observeCall(...observation: Observation): void;
  /** The Prometheus exposition of everything observed so far. */
  scrape(): Promise<{ contentType: string; text: string }>;
}

export function createMetrics(options: { rateLimitUnavailable: () => number }): Metrics {
  let loaded: CallMetrics | undefined;
  let loading: Promise<CallMetrics> | undefined;
  const waiting: Observation[] = [];
  const load = () =>
    (loading ??= import('./prometheus.js').then(
      ({ callMetrics }) => {
        loaded = callMetrics(options);
        for (const observation of waiting.splice(0)) loaded.observeCall(...observation);
        return loaded;
      },
      (error: unknown) => {
        // Tried again at the next call or scrape.
        loading = undefined;
        throw error;
      },
    ));
  return {
    observeCall(...observation) {
      if (loaded) return loaded.observeCall(...observation);
      waiting.push(observation);
      if (waiting.length > 1) return;
      load().catch((error: unknown) => {
        log.error({ err: error, uncounted: waiting.splice(0).length }, 'metrics did not load; the calls observed meanwhile are not counted');
      });
    },
    async scrape() {
      const { registry } = await load();
      return { contentType: registry.contentType, text: await registry.metrics() };
    },
  };
}
