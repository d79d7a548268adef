/**
 * The mail queue's settings: whether this process runs its worker, when a deferred message is tried again,
 * how often the worker looks and how many messages it sends at once.
 */
import { parseSchedule } from '../core/schedule.js';

export interface EmailQueueConfig {
  worker: boolean;
  /** Retries of a deferred message, in ms after the first attempt. */
  retryOffsetsMs: number[];
  pollMs: number;
  concurrency: number;
}

/** Retries of a deferred message over about a day, like a mail server's own queue. */
export const DEFAULT_EMAIL_RETRY_SCHEDULE = '30s,2m,10m,30m,1h,2h,4h,8h,16h';

/** The mail queue's settings when nothing says otherwise (a server built without them, or no variables set). */
export const DEFAULT_EMAIL_QUEUE: Omit<EmailQueueConfig, 'worker'> = { retryOffsetsMs: parseSchedule(DEFAULT_EMAIL_RETRY_SCHEDULE), pollMs: 1000, concurrency: 4 };
