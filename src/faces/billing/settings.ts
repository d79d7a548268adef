/**
 * The billing module's settings: whether a server runs the period closer (`BILLING_CLOSER`, on unless a
 * deployment leaves it to `dispatch worker`), how long a draft waits for late usage (`BILLING_GRACE_SECONDS`:
 * one hour, as Stripe leaves a draft before finalizing it) and how often it looks (`BILLING_CLOSE_INTERVAL_MS`).
 */
import { choice, integer } from '../../core/settings.js';

export interface BillingSettings {
  closer: boolean;
  graceMs: number;
  intervalMs: number;
}

export const DEFAULT_BILLING_SETTINGS: BillingSettings = { closer: true, graceMs: 3_600_000, intervalMs: 15_000 };

export function billingSettings(env: NodeJS.ProcessEnv): BillingSettings {
  return {
    closer: choice(env, 'BILLING_CLOSER', ['on', 'off'] as const, 'on') === 'on',
    graceMs: integer(env, 'BILLING_GRACE_SECONDS', DEFAULT_BILLING_SETTINGS.graceMs / 1000) * 1000,
    intervalMs: integer(env, 'BILLING_CLOSE_INTERVAL_MS', DEFAULT_BILLING_SETTINGS.intervalMs),
  };
}
