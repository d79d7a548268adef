/**
 * The layout the generator's printers share (print-declarations.ts, print-types.ts, print-values.ts and the
 * client's methods): the print width, how a line is measured against it, how a string is quoted, and how
 * JSDoc is written. The style is the one the project formats its own TypeScript in (single quotes, 120
 * columns, trailing commas), so the generated files read like the rest of the code; prettier does not run
 * over the files these printers write.
 */

/** The print width of the generated TypeScript. */
const WIDTH = 120;

/** A name as the emitters write one unquoted. */
export const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** Whether the line is within the print width. */
export function fits(line: string): boolean {
  return width(line) <= WIDTH;
}

/**
 * The line's width in columns, as an editor shows it: a wide (East Asian) character or an emoji takes two,
 * a combining mark or a control character none, any other one.
 */
function width(line: string): number {
  if (/^[\x20-\x7e]*$/.test(line)) return line.length;
  let columns = 0;
  for (const character of line) {
    if (ZERO_WIDTH.test(character)) continue;
    columns += WIDE.test(character) ? 2 : 1;
  }
  return columns;
}

const ZERO_WIDTH = /[\p{Cc}\p{Mn}\p{Me}\u200b-\u200d\ufeff]/u;
const WIDE = /[\p{Emoji_Presentation}\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{20000}-\u{3fffd}]/u;

/**
 * A string literal of the text between the quotes of a JSON string (`raw`): single quotes unless the text
 * holds more of them than double quotes, and no escape it no longer needs.
 */
export function quoteRaw(raw: string): string {
  const singles = raw.split("'").length - 1;
  const doubles = raw.split('"').length - 1;
  const quote = singles > doubles ? '"' : "'";
  const other = quote === '"' ? "'" : '"';
  const body = raw.replace(/\\(["'\\])|(["'])/g, (match, escaped?: string, bare?: string) => (escaped ? (escaped === other ? other : match) : bare === quote ? `\\${bare}` : bare!));
  return `${quote}${body}${quote}`;
}

/** A string as a string literal. */
export const quoted = (text: string) => quoteRaw(JSON.stringify(text).slice(1, -1));

/**
 * The JSDoc of `docs` (one comment each, its lines split at line breaks) at `indent`: one line if the text is
 * one, otherwise a line each, trimmed at their ends. `*\/` in the text is escaped so that it cannot end the
 * comment; a blank text writes no comment.
 */
export function jsDoc(docs: readonly string[] | undefined, indent: string): string[] {
  const out: string[] = [];
  for (const doc of docs ?? []) {
    if (doc.trim() === '') continue;
    const lines = doc.replace(/\*\//g, '*\\/').split(/\r\n|\r|\n/).map((line) => line.trimEnd());
    if (lines.length === 1) out.push(`${indent}/** ${lines[0]!.trim()} */`);
    else out.push(`${indent}/**`, ...lines.map((line) => `${indent} *${line ? ` ${line}` : ''}`), `${indent} */`);
  }
  return out;
}
