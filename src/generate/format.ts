/**
 * The one pinned formatter of generated output. `generate` and `check` both format through here, so
 * they always agree byte for byte.
 */
import * as prettier from 'prettier';

const OPTIONS: prettier.Options = { singleQuote: true, printWidth: 120, trailingComma: 'all', proseWrap: 'preserve' };

const PARSERS: [suffix: string, parser: string][] = [
  ['.d.ts', 'typescript'],
  ['.ts', 'typescript'],
  ['.js', 'babel'],
  ['.json', 'json'],
  ['.md', 'markdown'],
];

export async function format(path: string, text: string): Promise<string> {
  const parser = PARSERS.find(([suffix]) => path.endsWith(suffix))?.[1];
  return parser ? prettier.format(text, { ...OPTIONS, parser }) : text;
}
