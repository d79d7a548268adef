/**
 * The Prometheus registry behind `GET /metrics`: calls by face, action and status, their latency, the calls
 * let through without a rate-limit check because Redis could not be reached, and prom-client's process
 * metrics. One registry per server, so several servers in one process (as in tests) do not mix their counts.
 */
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface CallMetrics {
  registry: Registry;
  observeCall(face: string, action: string, status: number, seconds: number): void;
}

export function callMetrics(options: { rateLimitUnavailable: () => number }): CallMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const calls = new Counter({ name: 'dispatch_calls_total', help: 'Calls of POST /do by face, action and status.', labelNames: ['face', 'action', 'status'], registers: [registry] });
  const latency = new Histogram({
    name: 'dispatch_call_duration_seconds',
    help: 'Server time of POST /do calls.',
    labelNames: ['face', 'action'],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30],
    registers: [registry],
  });
  new Counter({
    name: 'dispatch_rate_limit_unavailable_total',
    help: 'Calls let through unchecked because the rate-limit store (Redis) was unreachable.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(options.rateLimitUnavailable());
    },
  });
  // prom-client hashes the label set on every update; each series is looked up once and kept instead.
  const series = new Map<string, { latency: Histogram.Internal<'face' | 'action'>; calls: Map<number, Counter.Internal> }>();
  return {
    registry,
    observeCall(face, action, status, seconds) {
      const name = `${face}.${action}`;
      let one = series.get(name);
      if (!one) series.set(name, (one = { latency: latency.labels(face, action), calls: new Map() }));
      let counter = one.calls.get(status);
      if (!counter) one.calls.set(status, (counter = calls.labels(face, action, String(status))));
      counter.inc();
      one.latency.observe(seconds);
    },
  };
}
