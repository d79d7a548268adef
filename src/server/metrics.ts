/**
 * The server's metrics: its calls, counted as they are answered (call-counts.ts), and the process metrics of
 * prom-client (prometheus.ts), whose registry is built at the first scrape of `GET /metrics`, not at start:
 * prom-client and its process collectors would otherwise add ~20 ms to every start, all of it before the
 * first call could be answered.
 */
import type { Registry } from 'prom-client';
import { CallCounts } from './call-counts.js';

export interface Metrics {
  observeCall(face: string, action: string, status: number, seconds: number): void;
  /** The Prometheus exposition of everything observed so far. */
  scrape(): Promise<{ contentType: string; text: string }>;
}

export function createMetrics(options: { rateLimitUnavailable: () => number }): Metrics {
  const calls = new CallCounts();
  let registry: Promise<Registry> | undefined;
  const load = () =>
    (registry ??= import('./prometheus.js').then(
      ({ processRegistry }) => processRegistry(options),
      (error: unknown) => {
        // Tried again at the next scrape.
        registry = undefined;
        throw error;
      },
    ));
  return {
    observeCall: (face, action, status, seconds) => calls.observe(face, action, status, seconds),
    async scrape() {
      const loaded = await load();
      return { contentType: loaded.contentType, text: `${await loaded.metrics()}\n${calls.exposition()}` };
    },
  };
}
