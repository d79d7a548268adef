/**
 * The one pinned formatter of generated output. `generate` and `check` both format through here, so they
 * always agree byte for byte. Each output has one printer: a file an emitter hands over as text laid out by
 * the generator's own printers (`Formatted`: the type files, the client's index and the dispatch table) is
 * written as it is; a file handed over as plain source is formatted by prettier if it is TypeScript (the
 * client's runtime copied from its templates, the module list, the platform and scope tables) and is
 * taken as its emitter printed it otherwise (ajv's validator code, `JSON.stringify` with two spaces, markdown
 * from the templates). A run formats on its own thread (format-thread.ts), a single file in process.
 */
import type * as prettier from 'prettier';
import { memoAsync } from '../memo/memo.js';
import { formatOnThread, releaseFormatThread, startFormatThread } from './format-thread.js';

/** A chunk of a file laid out by the generator's own printers, in its final text: prettier does not run over it. */
export interface Formatted {
  formatted: string;
}

const OPTIONS: prettier.Options = { singleQuote: true, printWidth: 120, trailingComma: 'all', proseWrap: 'preserve' };

// babel-ts prints the same as the typescript parser here, about twice as fast.
const PARSERS: [suffix: string, parser: string][] = [['.ts', 'babel-ts']];

/** Prettier's parser for the file at `path`, or none: the file is not prettier's to format. */
const parserOf = (path: string) => PARSERS.find(([suffix]) => path.endsWith(suffix))?.[1];

export async function format(path: string, text: string): Promise<string> {
  const parser = parserOf(path);
  if (!parser) return text.endsWith('\n') ? text : `${text}\n`;
  // Loaded on use: a run formats on the thread and never loads prettier here.
  const { format: prettierFormat } = await import('prettier');
  return prettierFormat(text, { ...OPTIONS, parser });
}

/**
 * format(), on the formatter's thread and memoized by the file's kind and text: unchanged text is never
 * formatted twice.
 */
export function formatCached(path: string, text: string): Promise<string> {
  const parser = parserOf(path);
  if (!parser) return format(path, text);
  return memoAsync('format', `${parser}\0${text}`, () => formatOnThread({ parser, text }, OPTIONS));
}

/** Starts the formatter's thread ahead of a run that will format much, so prettier has loaded by then. */
export const prepareFormatting = () => void startFormatThread(OPTIONS);

/** The process no longer waits for the files the formatter's thread holds (a run that failed after handing them over). */
export const releaseFormatting = releaseFormatThread;
