/**
 * The webhooks module's settings from the environment: the retry schedules (the contract's by default), whether
 * a server runs the delivery worker, and refusals of settings that would make no sense, naming the variable.
 */
import { describe, expect, it } from 'vitest';
import { parseSchedule } from '../../src/core/schedule.js';
import { ConfigError } from '../../src/core/settings.js';
import { webhookSettings } from '../../src/faces/webhooks/settings.js';

describe('webhook settings', () => {
  it("defaults to the contract's schedules: nine live retries over a day, two in test mode", () => {
    const config = webhookSettings({});
    expect(config.retryOffsetsMs.live).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000, 72_000_000, 86_400_000]);
    expect(config.retryOffsetsMs.test).toEqual([5_000, 30_000]);
    expect(config).toMatchObject({ timeoutMs: 15_000, allowPrivateUrls: false, worker: true });
  });

  it('reads every setting', () => {
    const config = webhookSettings({
      WEBHOOK_RETRY_SCHEDULE_TEST: '100ms, 1.5s',
      WEBHOOK_RETRY_SCHEDULE_LIVE: '1m,2h',
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_ALLOW_PRIVATE_URLS: '1',
      WEBHOOK_CONCURRENCY: '3',
      WEBHOOK_POLL_MS: '250',
      WEBHOOK_WORKER: 'off',
    });
    expect(config).toEqual({ retryOffsetsMs: { live: [60_000, 7_200_000], test: [100, 1500] }, timeoutMs: 2000, allowPrivateUrls: true, concurrency: 3, pollMs: 250, worker: false });
  });

  it('takes an empty schedule as no retries', () => {
    expect(parseSchedule('')).toEqual([]);
  });

  it.each([
    [{ WEBHOOK_RETRY_SCHEDULE_TEST: '5s,soon' }, /WEBHOOK_RETRY_SCHEDULE_TEST: "soon" is not a duration/],
    [{ WEBHOOK_RETRY_SCHEDULE_LIVE: '5m,5s' }, /WEBHOOK_RETRY_SCHEDULE_LIVE: each retry must come after the one before/],
    [{ WEBHOOK_TIMEOUT_MS: '0' }, /WEBHOOK_TIMEOUT_MS must be a whole number of at least 1/],
    [{ WEBHOOK_WORKER: 'maybe' }, /WEBHOOK_WORKER must be one of on, off/],
  ])('refuses %o with a one-line configuration error', (env, message) => {
    expect(() => webhookSettings(env)).toThrow(message);
    expect(() => webhookSettings(env)).toThrow(ConfigError);
  });
});
