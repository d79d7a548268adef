/**
 * The Prometheus registry behind `GET /metrics`: prom-client's process metrics and the calls let through
 * without a rate-limit check because Redis could not be reached. One registry per server, so several servers
 * in one process (as in tests) do not mix their counts. The calls themselves are counted by call-counts.ts.
 */
import { Counter, Registry, collectDefaultMetrics } from 'prom-client';

export function processRegistry(options: { rateLimitUnavailable: () => number }): Registry {
  // The Prometheus text format (the default), which the calls' families are appended in (metrics.ts).
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  new Counter({
    name: 'dispatch_rate_limit_unavailable_total',
    help: 'Calls let through unchecked because the rate-limit store (Redis) was unreachable.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(options.rateLimitUnavailable());
    },
  });
  return registry;
}
