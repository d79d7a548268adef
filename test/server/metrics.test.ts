/**
 * The calls are counted as they are answered, before any scrape; a scrape answers them beside the process
 * metrics, in the text format Prometheus parses, line for line as prom-client wrote the same counter and
 * histogram.
 */
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { CallCounts } from '../../src/server/call-counts.js';
import { createMetrics } from '../../src/server/metrics.js';

type Observation = [face: string, action: string, status: number, seconds: number];

/** The two families as prom-client writes them after the same observations. */
async function promClientText(observations: Observation[]): Promise<string> {
  const registry = new Registry();
  const calls = new Counter({ name: 'dispatch_calls_total', help: 'Calls of POST /do by face, action and status.', labelNames: ['face', 'action', 'status'], registers: [registry] });
  const latency = new Histogram({
    name: 'dispatch_call_duration_seconds',
    help: 'Server time of POST /do calls.',
    labelNames: ['face', 'action'],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30],
    registers: [registry],
  });
  for (const [face, action, status, seconds] of observations) {
    calls.labels(face, action, String(status)).inc();
    try {
      latency.labels(face, action).observe(seconds);
    } catch {
      // prom-client refuses a time that is no number; the call was counted.
    }
  }
  return registry.metrics();
}

describe('metrics', () => {
  it('writes the calls line for line as prom-client wrote the same counter and histogram', async () => {
    const observations: Observation[] = [
      ['ai', 'generate', 200, 0.002],
      ['search', 'list', 200, 0.001],
      ['ai', 'generate', 429, 0.0004],
      ['ai', 'generate', 200, 0.3],
      ['keys', 'get', 404, Number.NaN],
      ['ai', 'embed', 200, 31],
      ['search', 'list', 200, 0.05],
      ['a"b', 'c\\d\ne', 500, 1e-7],
    ];
    const counts = new CallCounts();
    for (const observation of observations) counts.observe(...observation);
    expect(counts.exposition()).toBe(await promClientText(observations));
  });

  it('answers the calls beside the process metrics, cumulative by bucket', async () => {
    const metrics = createMetrics({ rateLimitUnavailable: () => 3 });
    metrics.observeCall('ai', 'generate', 200, 0.002);
    metrics.observeCall('ai', 'generate', 200, 0.3);
    metrics.observeCall('ai', 'generate', 429, 0.001);
    metrics.observeCall('ai', 'generate', 200, 31);
    const { contentType, text } = await metrics.scrape();
    expect(contentType).toMatch(/^text\/plain/);
    expect(text).toMatch(/^process_cpu_user_seconds_total /m);
    expect(text).toMatch(/^dispatch_rate_limit_unavailable_total 3$/m);
    expect(text).toMatch(/^dispatch_calls_total\{face="ai",action="generate",status="200"\} 3$/m);
    expect(text).toMatch(/^dispatch_calls_total\{face="ai",action="generate",status="429"\} 1$/m);
    // A time equal to a bound falls in that bucket; one above every bound only in +Inf.
    expect(text).toMatch(/^dispatch_call_duration_seconds_bucket\{le="0.001",face="ai",action="generate"\} 1$/m);
    expect(text).toMatch(/^dispatch_call_duration_seconds_bucket\{le="0.5",face="ai",action="generate"\} 3$/m);
    expect(text).toMatch(/^dispatch_call_duration_seconds_bucket\{le="30",face="ai",action="generate"\} 3$/m);
    expect(text).toMatch(/^dispatch_call_duration_seconds_bucket\{le="\+Inf",face="ai",action="generate"\} 4$/m);
    expect(text).toMatch(/^dispatch_call_duration_seconds_count\{face="ai",action="generate"\} 4$/m);
  });

  it('answers the process metrics on a scrape before any call, and counts the calls after it', async () => {
    const metrics = createMetrics({ rateLimitUnavailable: () => 0 });
    const first = await metrics.scrape();
    expect(first.text).toMatch(/^process_cpu_user_seconds_total /m);
    expect(first.text).toMatch(/^# TYPE dispatch_calls_total counter$/m);
    expect(first.text).not.toMatch(/^dispatch_calls_total\{/m);
    metrics.observeCall('search', 'list', 200, 0.01);
    expect((await metrics.scrape()).text).toMatch(/^dispatch_calls_total\{face="search",action="list",status="200"\} 1$/m);
  });
});
