/**
 * What the generator's own printers (print-declarations.ts, print-values.ts, print-structures.ts) share of
 * prettier's layout, as prettier is configured for the generated TypeScript (format.ts): the print width, how
 * it measures a line, how it quotes a string, and JSDoc as it leaves it. A printer throws `Unsupported` where
 * it cannot be sure of prettier's output, and the text goes to prettier.
 */
import type { InterfaceDeclarationStructure } from 'ts-morph';

/** prettier's `printWidth` for the generated TypeScript (format.ts). */
const WIDTH = 120;

/** Thrown where a printer cannot be sure of prettier's layout: the text goes to prettier. */
export class Unsupported extends Error {}

/** A name as the emitters write one unquoted. */
export const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** Whether the line is within the print width, measured as prettier measures it. */
export function fits(line: string): boolean {
  return width(line) <= WIDTH;
}

/**
 * The line's width in columns. prettier counts wide characters and most emoji as two and marks as none; the
 * characters below are one column each, and a line with any other is left to prettier.
 */
function width(line: string): number {
  if (/^[\x20-\x7e]*$/.test(line)) return line.length;
  if (!NARROW_LINE.test(line)) throw new Unsupported();
  return [...line].length;
}

/**
 * Printable ASCII, Latin, Greek, Cyrillic, dashes, quotes and math signs: one column each to prettier. Marks,
 * wide characters and emoji are not; the few emoji it counts as one (©, ‼, ↔) are left out too.
 */
const NARROW_LINE = /^[\x20-\x7e\u00a0-\u00a8\u00aa-\u00ad\u00af-\u02ff\u0370-\u0482\u048a-\u052f\u2010-\u2027\u2030-\u203b\u203d-\u2048\u20a0-\u20c0\u2190-\u2193\u2200-\u22ff]*$/;

/**
 * A string literal as prettier prints one it is given as `"raw"` (JSON's quoting, as the emitters write them):
 * single quotes unless the text holds more of them than double quotes, and no escape it no longer needs.
 */
export function prettierString(raw: string): string {
  const singles = raw.split("'").length - 1;
  const doubles = raw.split('"').length - 1;
  const quote = singles > doubles ? '"' : "'";
  const other = quote === '"' ? "'" : '"';
  const body = raw.replace(/\\(["'\\])|(["'])/g, (match, escaped?: string, bare?: string) => (escaped ? (escaped === other ? other : match) : bare === quote ? `\\${bare}` : bare!));
  return `${quote}${body}${quote}`;
}

type JSDocs = InterfaceDeclarationStructure['docs'];

/** JSDoc as ts-morph prints `docs` and prettier leaves it, each line indented by `indent`. */
export function jsDoc(docs: JSDocs, indent: string): string[] {
  const out: string[] = [];
  for (const doc of docs ?? []) {
    // A lone carriage return is a line break to prettier and not to ts-morph: such text is left to them.
    if (typeof doc !== 'string' || doc.includes('*/') || doc.includes('\r') || doc.startsWith('\n')) throw new Unsupported();
    const lines = doc.split('\n');
    if (lines.length === 1) {
      if (lines[0] !== lines[0]!.trim() || lines[0] === '') throw new Unsupported();
      out.push(`${indent}/** ${lines[0]} */`);
    } else {
      out.push(`${indent}/**`, ...lines.map((line) => `${indent} *${line.trimEnd() ? ` ${line.trimEnd()}` : ''}`), `${indent} */`);
    }
  }
  return out;
}

/** Refuses a structure that sets anything but `keys` (and its kind): a feature the printer does not print. */
export function only(structure: object, keys: string[]): void {
  for (const [key, value] of Object.entries(structure)) {
    const unset = value === undefined || value === false || (Array.isArray(value) && value.length === 0);
    if (key !== 'kind' && !keys.includes(key) && !unset) throw new Unsupported();
  }
}
