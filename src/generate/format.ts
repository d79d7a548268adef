/**
 * The one pinned formatter of generated output. `generate` and `check` both format through here, so
 * they always agree byte for byte. Prettier formats the TypeScript people read and import; the other
 * outputs are printed canonically by their emitters (ajv's validator code, `JSON.stringify` with two
 * spaces, markdown from the templates), where prettier would add seconds on a large catalogue and
 * nothing for a reader. A run formats on its own thread (format-thread.ts), a single file in process.
 */
import type * as prettier from 'prettier';
import type { StatementStructures } from 'ts-morph';
import { memoAsync } from '../memo/memo.js';
import { formatOnThread, releaseFormatThread, startFormatThread } from './format-thread.js';
import { printDeclaration } from './print-declarations.js';
import { joinStatements, printStructures } from './print-structures.js';

/** A chunk of a file already as prettier would format it (see print-values.ts), taken as it is. */
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

/**
 * `prefix` and then the statements as ts-morph prints them, formatted. The declarations print-declarations.ts
 * knows are printed here; the other statements are written out as source (print-structures.ts) and formatted
 * on the formatter's thread, each on its own beside printed ones (prettier formats a file's statements one by
 * one), or where even that printer refuses one, the chunk is printed and formatted there; memoized by their
 * source or by the statements (see statementChunks).
 */
export function formatStatements(path: string, prefix: string, statements: StatementStructures[]): Promise<string> {
  const parser = parserOf(path);
  if (!parser) throw new Error(`Statements cannot be printed into ${path}: not a TypeScript file.`);
  // Declarations the printer knows come out as prettier would format them, without ts-morph or prettier, and
  // without the memo: printing them costs less than spelling and hashing their key.
  const printed = prefix === '' ? statements.map(printDeclaration) : [];
  if (printed.some((text) => text !== undefined)) {
    const sources = statements.map((statement, i) => (printed[i] === undefined ? printStructures([statement]) : ''));
    if (sources.every((source) => source !== undefined)) {
      const texts = statements.map((_, i) => printed[i] ?? formatCached(path, sources[i]!).then((text) => text.trimEnd()));
      return Promise.all(texts).then((formatted) => joinStatements(statements, formatted));
    }
  }
  const source = printStructures(statements);
  if (source !== undefined) return formatCached(path, prefix + source);
  // Keyed by native JSON: the structures hold only strings, booleans, kinds and arrays of them (no number JSON
  // cannot spell), and a run keys every chunk of every face, which keyText would spell several times slower.
  return memoAsync('format-statements', `${parser}\0${prefix}\0${JSON.stringify(statements)}`, () => formatOnThread({ parser, prefix, statements }, OPTIONS));
}

/** Starts the formatter's thread ahead of a run that will format much, so prettier has loaded by then. */
export const prepareFormatting = () => void startFormatThread(OPTIONS);

/** The process no longer waits for the files the formatter's thread holds (a run that failed after handing them over). */
export const releaseFormatting = releaseFormatThread;
