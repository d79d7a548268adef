/**
 * The payments module's settings: whether a server runs the reconciler (`PAYMENTS_RECONCILER`, on unless a
 * deployment leaves it to `dispatch worker`), how long a charge or refund stays in flight before it asks the
 * processor (past the longest time-out a call may have, 2 min, so never while its call still waits) and how
 * often it looks. The last two are not read from the environment: a test gives its own.
 */
import { choice } from '../../core/settings.js';

export interface PaymentsSettings {
  reconciler: boolean;
  graceMs: number;
  intervalMs: number;
}

export const DEFAULT_PAYMENTS_SETTINGS: PaymentsSettings = { reconciler: true, graceMs: 180_000, intervalMs: 15_000 };

export function paymentsSettings(env: NodeJS.ProcessEnv): PaymentsSettings {
  return { ...DEFAULT_PAYMENTS_SETTINGS, reconciler: choice(env, 'PAYMENTS_RECONCILER', ['on', 'off'] as const, 'on') === 'on' };
}
