/**
 * An action's price in words, shared by the docs and the OpenAPI descriptions so that both say the same:
 * `0.0005 USD per call + 0.000002 USD per `outputTokens``, or `free`. Prices are shown exactly as the face file
 * writes them, units in sorted order, and zero prices are left out.
 */
import { isZeroPrice } from '../spec/price.js';
import type { Cost } from '../spec/model.js';
import { byString, code } from './docs-tables.js';

/** `unit` renders a unit name (a code span by default; the docs link it to the table of units). */
export function priceWords(cost: Cost, currency: string, unit: (name: string) => string = code): string {
  const money = (price: string) => `${price} ${currency.toUpperCase()}`;
  const parts: string[] = [];
  if (!isZeroPrice(cost.perCall)) parts.push(`${money(cost.perCall)} per call`);
  for (const name of Object.keys(cost.perUnit).sort(byString)) {
    const price = cost.perUnit[name]!;
    if (!isZeroPrice(price)) parts.push(`${money(price)} per ${unit(name)}`);
  }
  return parts.length ? parts.join(' + ') : 'free';
}
