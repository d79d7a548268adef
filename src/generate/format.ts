/**
 * The one pinned formatter of generated output. `generate` and `check` both format through here, so
 * they always agree byte for byte. Prettier formats the TypeScript people read and import; the other
 * outputs are printed canonically by their emitters (ajv's validator code, `JSON.stringify` with two
 * spaces, markdown from the templates), where prettier would add seconds on a large catalogue and
 * nothing for a reader.
 */
import * as prettier from 'prettier';
import { memoAsync } from '../memo/memo.js';

const OPTIONS: prettier.Options = { singleQuote: true, printWidth: 120, trailingComma: 'all', proseWrap: 'preserve' };

// babel-ts prints the same as the typescript parser here, about twice as fast.
const PARSERS: [suffix: string, parser: string][] = [['.ts', 'babel-ts']];

export async function format(path: string, text: string): Promise<string> {
  const parser = PARSERS.find(([suffix]) => path.endsWith(suffix))?.[1];
  return parser ? prettier.format(text, { ...OPTIONS, parser }) : text.endsWith('\n') ? text : `${text}\n`;
}

/** format(), memoized by the file's kind and text: unchanged text is never formatted twice. */
export function formatCached(path: string, text: string): Promise<string> {
  const parser = PARSERS.find(([suffix]) => path.endsWith(suffix))?.[1];
  if (!parser) return format(path, text);
  return memoAsync('format', `${parser}\0${text}`, () => format(path, text));
}
