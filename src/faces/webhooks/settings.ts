/**
 * The webhooks module's settings (docs/contract.md § Webhooks): the retry schedule per mode, the time a
 * receiver has to answer, whether URLs may use http and private addresses, how the delivery worker polls, and
 * whether a server runs it (`WEBHOOK_WORKER`, on unless a deployment leaves it to `dispatch worker`). Read
 * from the `WEBHOOK_*` variables at start; the defaults are the contract's.
 */
import { parseSchedule } from '../../core/schedule.js';
import { choice, ConfigError } from '../../core/settings.js';
import { WEBHOOK_RETRY_SCHEDULE, WEBHOOK_TIMEOUT_MS } from '../../spec/webhook-delivery.js';

export interface WebhookSettings {
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
  /** A server runs the delivery worker; off when `dispatch worker` processes do it. */
  worker: boolean;
}

export const DEFAULT_WEBHOOK_SETTINGS: WebhookSettings = {
  retryOffsetsMs: { live: parseSchedule(WEBHOOK_RETRY_SCHEDULE.live), test: parseSchedule(WEBHOOK_RETRY_SCHEDULE.test) },
  timeoutMs: WEBHOOK_TIMEOUT_MS,
  allowPrivateUrls: false,
  concurrency: 8,
  pollMs: 1000,
  worker: true,
};

/** The settings from `WEBHOOK_*` variables, defaults for those unset. */
export function webhookSettings(env: NodeJS.ProcessEnv): WebhookSettings {
  const number = (name: string, fallback: number, min: number) => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min) throw new ConfigError(`${name} must be a whole number of at least ${min}, not "${raw}".`);
    return value;
  };
  return {
    retryOffsetsMs: {
      live: schedule(env, 'WEBHOOK_RETRY_SCHEDULE_LIVE', WEBHOOK_RETRY_SCHEDULE.live),
      test: schedule(env, 'WEBHOOK_RETRY_SCHEDULE_TEST', WEBHOOK_RETRY_SCHEDULE.test),
    },
    timeoutMs: number('WEBHOOK_TIMEOUT_MS', DEFAULT_WEBHOOK_SETTINGS.timeoutMs, 1),
    allowPrivateUrls: env.WEBHOOK_ALLOW_PRIVATE_URLS === '1',
    concurrency: number('WEBHOOK_CONCURRENCY', DEFAULT_WEBHOOK_SETTINGS.concurrency, 1),
    pollMs: number('WEBHOOK_POLL_MS', DEFAULT_WEBHOOK_SETTINGS.pollMs, 10),
    worker: choice(env, 'WEBHOOK_WORKER', ['on', 'off'] as const, 'on') === 'on',
  };
}

function schedule(env: NodeJS.ProcessEnv, name: string, fallback: string): number[] {
  try {
    return parseSchedule(env[name] ?? fallback, name);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
}

/**
 * What the running module offers through `ctx.service('webhooks')`: its own handlers read the URL rules of the
 * settings it was started with there, so that the handler context needs no webhook setting.
 */
export type WebhooksService = Pick<WebhookSettings, 'allowPrivateUrls'>;
