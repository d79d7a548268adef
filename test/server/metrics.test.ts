/**
 * The metrics load on first use: calls observed before the registry exists are counted, in order, once it
 * has loaded; a scrape before any call loads it and answers the process metrics.
 */
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/server/metrics.js';

describe('metrics', () => {
  it('counts the calls observed while the registry loads', async () => {
    const metrics = createMetrics({ rateLimitUnavailable: () => 3 });
    metrics.observeCall('ai', 'generate', 200, 0.002);
    metrics.observeCall('ai', 'generate', 200, 0.3);
    metrics.observeCall('ai', 'generate', 429, 0.001);
    const { contentType, text } = await metrics.scrape();
    expect(contentType).toMatch(/^text\/plain/);
    expect(text).toMatch(/^dispatch_calls_total\{face="ai",action="generate",status="200"\} 2$/m);
    expect(text).toMatch(/^dispatch_calls_total\{face="ai",action="generate",status="429"\} 1$/m);
    expect(text).toMatch(/^dispatch_call_duration_seconds_count\{face="ai",action="generate"\} 3$/m);
    expect(text).toMatch(/^dispatch_call_duration_seconds_bucket\{le="0.005",face="ai",action="generate"\} 2$/m);
    expect(text).toMatch(/^dispatch_rate_limit_unavailable_total 3$/m);
  });

  it('loads on a scrape before any call, and counts the calls after it', async () => {
    const metrics = createMetrics({ rateLimitUnavailable: () => 0 });
    const first = await metrics.scrape();
    expect(first.text).toMatch(/^process_cpu_user_seconds_total /m);
    expect(first.text).not.toMatch(/^dispatch_calls_total\{/m);
    metrics.observeCall('search', 'list', 200, 0.01);
    expect((await metrics.scrape()).text).toMatch(/^dispatch_calls_total\{face="search",action="list",status="200"\} 1$/m);
  });
});
