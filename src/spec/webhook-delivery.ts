/**
 * The webhook delivery contract (docs/contract.md § Webhooks) as the platform sets it by default: when a
 * failed delivery is tried again in each mode, and how long a receiver has to answer. The docs and the
 * OpenAPI document state it; the webhooks module delivers by it unless `WEBHOOK_*` settings say otherwise.
 */
export const WEBHOOK_RETRY_SCHEDULE = { live: '5s,5m,30m,2h,5h,10h,14h,20h,24h', test: '5s,30s' } as const;

/** A receiver that has not answered within this is a failed attempt. */
export const WEBHOOK_TIMEOUT_MS = 15_000;

/** Attempts a delivery makes in `mode` before it fails: the first, and one per retry of the schedule. */
export function webhookAttempts(mode: keyof typeof WEBHOOK_RETRY_SCHEDULE): number {
  return WEBHOOK_RETRY_SCHEDULE[mode].split(',').length + 1;
}
