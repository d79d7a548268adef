/**
 * What a YAML syntax error means, said as a face author would fix it and placed at the mistake: the yaml
 * library reports where its reading broke down (the value above an over-indented line, the start of a line
 * indented too little, the end of the file for an unclosed quote), and often three errors for one slip.
 * `explainFirst` reads the first error of a document with the others it came with and returns one mistake.
 */
import { isCollection, isScalar, visit, type Document, type LineCounter, type YAMLError } from 'yaml';
import { indentOf, isContent, keyOf } from './yaml-blocks.js';

export interface Mistake {
  /** Where the mistake is, as an offset into the text. */
  offset: number;
  /** What is wrong and what to write instead, as a sentence. */
  detail: string;
  /** The line (0-based) whose block the mistake leaves unreadable. */
  line: number;
  /** The mistake starts a second document: the line and every one after it are not the face. */
  rest?: boolean;
}

export function explainFirst(text: string, doc: Document.Parsed, lineCounter: LineCounter): Mistake {
  const errors = [...doc.errors].sort((a, b) => a.pos[0] - b.pos[0]);
  const error = errors[0]!;
  const lines = text.split('\n');
  const offset = error.pos[0];
  const line = lineCounter.linePos(offset).line - 1;
  const lineStart = (n: number) => lineCounter.lineStarts[n] ?? text.length;
  const firstCharOf = (n: number) => lineStart(n) + indentOf(lines[n]!);
  const at = (detail: string, where = offset, whose = lineCounter.linePos(where).line - 1): Mistake => ({ offset: where, detail, line: whose });

  switch (error.code) {
    case 'BLOCK_AS_IMPLICIT_KEY':
    case 'MULTILINE_IMPLICIT_KEY': {
      if (/block sequence/.test(error.message)) {
        return at('This list item ("- ") stands among the keys of a mapping: remove the "- ", or put the list under a key of its own.', firstCharOf(line));
      }
      // The library reads a line and the `key: value` line after it as one key, and reports it at the first:
      // a line with no key of its own, or a value on its key's line followed by a more-indented key.
      if (errors.some((e) => e.code === 'MULTILINE_IMPLICIT_KEY' && e.pos[0] === offset)) {
        if (keyOf(lines[line]!) === undefined) return at(NO_COLON, firstCharOf(line));
        const below = nextContent(lines, line);
        if (below !== undefined && indentOf(lines[below]!) > indentOf(lines[line]!)) return at(overIndented(lines, line, below), firstCharOf(below));
      }
      if (error.code === 'BLOCK_AS_IMPLICIT_KEY') {
        return at(`This value holds ": ", which YAML reads as the start of a key: quote it, as in ${written(lines[line]!, valueFrom(text, offset))}`);
      }
      break;
    }
    case 'BAD_INDENT': {
      const flow = /^Flow (map|sequence)/.exec(error.message);
      if (flow) {
        const opener = unclosedFlow(doc, text, offset);
        const [open, close, what] = flow[1] === 'map' ? ['{', '}', 'mapping'] : ['[', ']', 'list'];
        if (opener !== undefined) return at(`This "${open}" is never closed: end the ${what} with "${close}".`, opener);
        break;
      }
      if (/items must start at the same column/.test(error.message)) return at(underIndented(lines, line), firstCharOf(line));
      break;
    }
    case 'MISSING_CHAR': {
      const quote = /^Missing closing (["'])quote/.exec(error.message)?.[1];
      if (quote) {
        const opener = unclosedQuote(doc, text, offset, quote);
        const inside = quote === '"' ? '\\"' : "''";
        if (opener !== undefined) return at(`This quoted value has no closing ${quote}: end it with ${quote} (a ${quote} inside it is written ${inside}).`, opener);
        break;
      }
      if (/^Implicit map keys need to be followed by map values/.test(error.message)) return at(NO_COLON);
      break;
    }
    case 'TAB_AS_INDENT':
      return at('This line is indented with a tab, and YAML indents with spaces only: replace the tab with spaces.');
    case 'BAD_SCALAR_START': {
      const value = valueFrom(text, offset);
      return at(`A value cannot start with "${value[0]}" unless it is quoted: write ${written(lines[line]!, value)}`);
    }
    case 'BAD_DQ_ESCAPE': {
      const escape = /Invalid escape sequence (\S+)/.exec(error.message)?.[1] ?? text.slice(offset, offset + 2);
      return at(`"${escape}" is no escape in a double-quoted value: write a backslash as "\\\\", or put the value in single quotes.`);
    }
    case 'MULTIPLE_DOCS':
      return { ...at('This "---" starts a second YAML document, and the file holds one: remove it and what follows, or move that to a file of its own.'), rest: true };
  }
  return at(libraryWords(error));
}

const NO_COLON = 'This line has no ":" after its key: write "key: value", or indent it more than the key above to go on with that key\'s value.';

/** The library's own sentence, for the errors no case above words better. */
function libraryWords(error: YAMLError): string {
  const first = error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
  return /[.!?]$/.test(first) ? first : `${first}.`;
}

function nextContent(lines: readonly string[], after: number): number | undefined {
  for (let i = after + 1; i < lines.length; i++) if (isContent(lines[i])) return i;
  return undefined;
}

function overIndented(lines: readonly string[], above: number, line: number): string {
  const key = keyOf(lines[above]!);
  const own = keyOf(lines[line]!);
  const it = own === undefined ? 'it' : `"${own}"`;
  if (key === undefined) return `This line is indented more than the line above it, which already has its value: start ${it} at the column of the key it goes beside.`;
  const column = lines[above]!.indexOf(key) + 1;
  return `This line is indented more than "${key}" above it, which already has its value: start ${it} at column ${column}, as "${key}" does, to make it the next key.`;
}

/** A line that starts between two indentation levels open above it: it fits the one or the other. */
function underIndented(lines: readonly string[], line: number): string {
  const indent = indentOf(lines[line]!);
  const own = keyOf(lines[line]!);
  const it = own === undefined ? 'it' : `"${own}"`;
  // The levels open at this line, deepest first: each line above that starts left of every line after it.
  const levels: { column: number; key: string | undefined }[] = [];
  for (let i = line - 1, least = Infinity; i >= 0 && least > 0; i--) {
    if (!isContent(lines[i]) || indentOf(lines[i]!) >= least) continue;
    least = indentOf(lines[i]!);
    const key = keyOf(lines[i]!);
    levels.push({ column: key === undefined ? least + 1 : lines[i]!.indexOf(key) + 1, key });
  }
  const deeper = levels.filter((l) => l.column > indent + 1).at(-1);
  const shallower = levels.find((l) => l.column < indent + 1);
  const name = (l: { key: string | undefined }) => (l.key === undefined ? 'the line' : `"${l.key}"`);
  if (!deeper) return `This line is indented differently from the keys beside it: start ${it} at the column of the key it goes beside.`;
  if (!shallower) return `This line is indented less than ${name(deeper)} above it: start ${it} at column ${deeper.column}, as ${name(deeper)} does.`;
  return (
    `This line is indented less than ${name(deeper)} above it and more than ${name(shallower)}: ` +
    `start ${it} at column ${deeper.column} to put it beside ${name(deeper)}, or at column ${shallower.column} to put it beside ${name(shallower)}.`
  );
}

/** Where the innermost flow collection (`{`, `[`) still open at `offset` starts. */
function unclosedFlow(doc: Document.Parsed, text: string, offset: number): number | undefined {
  let found: number | undefined;
  visit(doc, {
    Node(_, node) {
      if (!isCollection(node) || !node.flow || !node.range || node.range[0] >= offset) return;
      const written = text.slice(node.range[0], node.range[1]).trimEnd();
      if (!written.endsWith(written.startsWith('{') ? '}' : ']') && (found === undefined || node.range[0] > found)) found = node.range[0];
    },
  });
  return found;
}

/** Where the quoted value still open at `offset` starts. */
function unclosedQuote(doc: Document.Parsed, text: string, offset: number, quote: string): number | undefined {
  let found: number | undefined;
  visit(doc, {
    Scalar(_, node) {
      if (!isScalar(node) || !node.range || node.range[0] >= offset || !node.type?.startsWith('QUOTE')) return;
      const written = text.slice(node.range[0], node.range[1]).trimEnd();
      if (text[node.range[0]] === quote && (written.length < 2 || !written.endsWith(quote)) && (found === undefined || node.range[0] > found)) found = node.range[0];
    },
  });
  return found;
}

/** The value written from `offset` to the end of its line, without a comment. */
function valueFrom(text: string, offset: number): string {
  const end = text.indexOf('\n', offset);
  return text.slice(offset, end === -1 ? undefined : end).replace(/\s+#.*$/, '').trim();
}

/**
 * The line's key with its value quoted (`summary: "A demo: face."`): in double quotes, or single ones when it
 * holds a double quote or a backslash.
 */
function written(line: string, value: string): string {
  const key = keyOf(line);
  const quoted = /["\\]/.test(value) ? `'${value.replaceAll("'", "''")}'` : `"${value}"`;
  return key === undefined ? quoted : `${key}: ${quoted}`;
}
