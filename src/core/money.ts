/**
 * Money checks of the faces that take money (payments, billing's prices; docs/faces/payments.md § Payments): a currency is a
 * lower-case ISO 4217 code of money that some country uses (currencies.ts: never a metal, fund, unit of
 * account, testing or "no currency" code); amounts are integer minor units, which the payload schemas already
 * require. A bad currency is `payload_invalid` naming the field.
 */
import { invalidField } from './errors.js';
import { moneyDigits } from './currencies.js';

/** The ISO 4217 data of a lower-case code, or undefined when it is not the money of a country. */
export function currencyOf(code: string): { code: string; digits: number } | undefined {
  const digits = moneyDigits(code);
  return digits !== undefined ? { code, digits } : undefined;
}

/** Throws `payload_invalid` at `param` unless `code` is an ISO 4217 currency that is money. */
export function checkCurrency(code: string, param: string): void {
  if (currencyOf(code)) return;
  const message = `"${code}" is not the ISO 4217 code of a country's currency (metals, funds, units of account and testing codes are not money)`;
  throw invalidField(param, message, 'currency');
}
