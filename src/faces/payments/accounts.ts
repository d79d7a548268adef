/**
 * The ledger accounts of payments, per partition. Money enters from and leaves to `world:<currency>`, the
 * outside (card networks, banks), which may go negative. Each intent has no-overdraft accounts:
 * `authorized` holds what a manual-capture confirmation put on hold, `captured` what was charged and not
 * refunded, `refunding` what a refund took while the processor refunds it. So a refund can never take more than was captured, and the balance is derived by adding up
 * accounts: available = Σ captured, pending = Σ authorized.
 */
import type { Account } from './ledger.js';

export const world = (currency: string) => `world:${currency}`;
export const authorized = (intentId: string) => `intent:${intentId}:authorized`;
export const captured = (intentId: string) => `intent:${intentId}:captured`;
/** What a refund in progress took from `captured`, until the processor has refunded it. */
export const refunding = (intentId: string) => `intent:${intentId}:refunding`;

/** The accounts an intent's money moves through. */
export function intentAccounts(intentId: string, currency: string): Account[] {
  return [
    { id: world(currency), currency, noOverdraft: false },
    { id: authorized(intentId), currency, noOverdraft: true },
    { id: captured(intentId), currency, noOverdraft: true },
    { id: refunding(intentId), currency, noOverdraft: true },
  ];
}
