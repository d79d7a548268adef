/**
 * The ISO 4217 codes that are money of a country, taken from the list ISO publishes, which the
 * `currency-codes` package ships beside the data it builds from it. That list also holds codes that are not
 * money: precious metals (XAU), bond-market units (XBA), units of account (XDR, XUA, XSU), the testing code
 * (XTS) and "no currency" (XXX), for which it gives no minor units (`N.A.`), and funds (BOV, CLF, USN, ...),
 * whose names it flags `IsFund`. The package's own data keeps neither mark (it reads `N.A.` as 0 digits), so
 * the list itself is read: a code is money when one of its entries has minor units and is not a fund.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

let money: Map<string, number> | undefined;

/** Minor-unit digits by lower-case code, of every code that is money. */
function moneyCodes(): Map<string, number> {
  if (money) return money;
  const list = readFileSync(createRequire(import.meta.url).resolve('currency-codes/iso-4217-list-one.xml'), 'utf8');
  money = new Map();
  for (const [, entry] of list.matchAll(/<CcyNtry>([\s\S]*?)<\/CcyNtry>/g)) {
    const code = /<Ccy>([A-Z]{3})<\/Ccy>/.exec(entry!)?.[1];
    const digits = /<CcyMnrUnts>(\d+)<\/CcyMnrUnts>/.exec(entry!)?.[1];
    if (code && digits !== undefined && !/IsFund="true"/.test(entry!)) money.set(code.toLowerCase(), Number(digits));
  }
  return money;
}

/** The minor-unit digits of a lower-case ISO 4217 code that is money, or undefined for any other code. */
export function moneyDigits(code: string): number | undefined {
  return moneyCodes().get(code);
}
