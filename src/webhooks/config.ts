/**
 * Webhook delivery settings (docs/contract.md § Webhooks): the retry schedule per mode, the time a receiver has to answer,
 * whether URLs may use http and private addresses, and how the workers poll. Read from the environment at
 * start; the defaults are the contract's.
 */
import { parseSchedule } from '../core/schedule.js';
import { WEBHOOK_RETRY_SCHEDULE, WEBHOOK_TIMEOUT_MS } from '../spec/webhook-delivery.js';

export interface WebhookConfig {
  /** When each retry is due, in ms after the first attempt; a delivery makes one attempt more than this lists. */
  retryOffsetsMs: { live: number[]; test: number[] };
  /** A receiver that has not answered within this is a failed attempt (15 s). */
  timeoutMs: number;
  /** Lets URLs use http in live mode and private, loopback and link-local addresses (development and tests). */
  allowPrivateUrls: boolean;
  /** Deliveries one worker sends at once. */
  concurrency: number;
  /** How often an idle worker looks for due deliveries; a commit in the same process wakes it at once. */
  pollMs: number;
}

export const DEFAULT_WEBHOOK_CONFIG: WebhookConfig = {
  retryOffsetsMs: { live: parseSchedule(WEBHOOK_RETRY_SCHEDULE.live), test: parseSchedule(WEBHOOK_RETRY_SCHEDULE.test) },
  timeoutMs: WEBHOOK_TIMEOUT_MS,
  allowPrivateUrls: false,
  concurrency: 8,
  pollMs: 1000,
};

/** The settings from `WEBHOOK_*` variables, defaults for those unset. */
export function readWebhookConfig(env: NodeJS.ProcessEnv): WebhookConfig {
  const number = (name: string, fallback: number, min: number) => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be a whole number of at least ${min}, not "${raw}".`);
    return value;
  };
  return {
    retryOffsetsMs: {
      live: parseSchedule(env.WEBHOOK_RETRY_SCHEDULE_LIVE ?? WEBHOOK_RETRY_SCHEDULE.live, 'WEBHOOK_RETRY_SCHEDULE_LIVE'),
      test: parseSchedule(env.WEBHOOK_RETRY_SCHEDULE_TEST ?? WEBHOOK_RETRY_SCHEDULE.test, 'WEBHOOK_RETRY_SCHEDULE_TEST'),
    },
    timeoutMs: number('WEBHOOK_TIMEOUT_MS', DEFAULT_WEBHOOK_CONFIG.timeoutMs, 1),
    allowPrivateUrls: env.WEBHOOK_ALLOW_PRIVATE_URLS === '1',
    concurrency: number('WEBHOOK_CONCURRENCY', DEFAULT_WEBHOOK_CONFIG.concurrency, 1),
    pollMs: number('WEBHOOK_POLL_MS', DEFAULT_WEBHOOK_CONFIG.pollMs, 10),
  };
}
