/**
 * Prices in face files: exact decimals in the platform currency, written as a YAML number (`0.0005`) or a
 * decimal string (`"0.0005"`). The model keeps each price's text as written, never a float, so that what the
 * face file says is what the docs show and what a call is charged.
 */
import { isAlias, isCollection, isScalar, type Document } from 'yaml';
import type { JsonPath, SourceFile } from './source.js';

/** Costs are counted in nano-units (10⁻⁹ of the currency, see src/faces/usage/cost.ts): a finer price cannot be charged exactly. */
export const PRICE_DECIMALS = 9;

/** Digits with an optional fraction: no sign, exponent, leading zeros or spaces. */
const PLAIN_DECIMAL = /^(0|[1-9]\d*)(\.\d+)?$/;

/**
 * The text of the price at `path`. A YAML number is taken from its source text (`yaml` keeps it on every
 * parsed scalar), since `String(0.0000005)` would be `5e-7` and a float may not hold the decimal at all.
 * `String(value)`, the shortest text that reads back as the same number, is only a fallback for a scalar
 * without source text, which a parsed document does not have; an exponent form there is reported by the rule.
 */
export function priceText(source: SourceFile, path: JsonPath, value: number | string): string {
  if (typeof value === 'string') return value;
  const node = nodeAt(source.doc, path);
  return isScalar(node) && node.value === value && typeof node.source === 'string' ? node.source : String(value);
}

/** The node at `path`, following aliases (a face may share a cost through an anchor). */
function nodeAt(doc: Document.Parsed, path: JsonPath): unknown {
  let node: unknown = doc.contents;
  for (const segment of path) {
    if (isAlias(node)) node = node.resolve(doc);
    if (!isCollection(node)) return undefined;
    node = node.get(segment, true);
  }
  return isAlias(node) ? node.resolve(doc) : node;
}

/** Why a price's text is refused, or undefined for a plain decimal, not negative, of at most 9 places. */
export function priceProblem(text: string): string | undefined {
  if (text.startsWith('-') && PLAIN_DECIMAL.test(text.slice(1))) return 'is negative';
  if (!PLAIN_DECIMAL.test(text)) return 'is not a plain decimal (write it as e.g. 0.0005 or "0.0005")';
  // Trailing zeros add no precision: 0.0000000010 is exactly 10⁻⁹.
  const places = (text.split('.')[1] ?? '').replace(/0+$/, '').length;
  if (places > PRICE_DECIMALS) return `is finer than 10⁻⁹ of the currency (more than ${PRICE_DECIMALS} decimal places)`;
  return undefined;
}

/** True for a price of zero ("0", "0.00"): what the docs show as free. Expects a text priceProblem accepts. */
export function isZeroPrice(text: string): boolean {
  return !/[1-9]/.test(text);
}
