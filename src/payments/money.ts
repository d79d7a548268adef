/**
 * Money checks of the payments face (API.md §14): a currency is an ISO 4217 code, lower case, that the
 * maintained `currency-codes` package knows (not a table of our own); amounts are integer minor units, which
 * the payload schemas already require. A bad currency is `payload_invalid` naming the field.
 */
import currencyCodes from 'currency-codes';
import { ApiError, invalidField } from '../runtime/errors.js';

/** The ISO 4217 data of a lower-case code, or undefined when there is no such currency. */
export function currencyOf(code: string): { code: string; digits: number } | undefined {
  const found = currencyCodes.code(code.toUpperCase());
  return found ? { code, digits: found.digits } : undefined;
}

/** Throws `payload_invalid` at `param` unless `code` is an ISO 4217 currency. */
export function checkCurrency(code: string, param: string): void {
  if (currencyOf(code)) return;
  const message = `"${code}" is not an ISO 4217 currency code`;
  throw invalidField(param, message, 'currency');
}
