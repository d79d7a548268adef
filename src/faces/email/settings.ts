/**
 * The email module's settings: whether a server runs the mail queue's worker (`EMAIL_WORKER`, on unless a
 * deployment leaves it to `dispatch worker`), when a deferred message is tried again
 * (`EMAIL_RETRY_SCHEDULE`), how often the worker looks (`EMAIL_POLL_MS`) and how many messages it sends at
 * once (`EMAIL_CONCURRENCY`).
 */
import { parseSchedule } from '../../core/schedule.js';
import { choice, ConfigError, integer } from '../../core/settings.js';

export interface EmailSettings {
  worker: boolean;
  /** Retries of a deferred message, in ms after the first attempt. */
  retryOffsetsMs: number[];
  pollMs: number;
  concurrency: number;
}

/** Retries of a deferred message over about a day, like a mail server's own queue. */
export const DEFAULT_EMAIL_RETRY_SCHEDULE = '30s,2m,10m,30m,1h,2h,4h,8h,16h';

/** The settings when no variable is set. */
export const DEFAULT_EMAIL_SETTINGS: EmailSettings = { worker: true, retryOffsetsMs: parseSchedule(DEFAULT_EMAIL_RETRY_SCHEDULE), pollMs: 1000, concurrency: 4 };

export function emailSettings(env: NodeJS.ProcessEnv): EmailSettings {
  return {
    worker: choice(env, 'EMAIL_WORKER', ['on', 'off'] as const, 'on') === 'on',
    retryOffsetsMs: env.EMAIL_RETRY_SCHEDULE ? retrySchedule(env.EMAIL_RETRY_SCHEDULE) : DEFAULT_EMAIL_SETTINGS.retryOffsetsMs,
    pollMs: integer(env, 'EMAIL_POLL_MS', DEFAULT_EMAIL_SETTINGS.pollMs),
    concurrency: integer(env, 'EMAIL_CONCURRENCY', DEFAULT_EMAIL_SETTINGS.concurrency),
  };
}

/** A refused schedule stops the start with one line, as every other setting does. */
function retrySchedule(text: string): number[] {
  try {
    return parseSchedule(text, 'EMAIL_RETRY_SCHEDULE');
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
}
