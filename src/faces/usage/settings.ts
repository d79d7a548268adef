/**
 * The usage module's settings: how long a record may wait to be written (`USAGE_FLUSH_MS`: the most a crash
 * loses), how long raw records are kept (`USAGE_RETENTION_DAYS`) and how long the minute rollups that
 * summaries read are (`USAGE_ROLLUP_RETENTION_DAYS`).
 */
import { integer } from '../../core/settings.js';

export interface UsageSettings {
  flushMs: number;
  retentionDays: number;
  rollupRetentionDays: number;
  /**
   * Whether calls are recorded at all. Always on when read from the environment; a benchmark turns it off in
   * code to measure what recording costs.
   */
  record: boolean;
}

export function usageSettings(env: NodeJS.ProcessEnv): UsageSettings {
  return {
    flushMs: integer(env, 'USAGE_FLUSH_MS', 1000),
    retentionDays: integer(env, 'USAGE_RETENTION_DAYS', 30),
    rollupRetentionDays: integer(env, 'USAGE_ROLLUP_RETENTION_DAYS', 400),
    record: true,
  };
}
