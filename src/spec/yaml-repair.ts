/**
 * What can be read of a face file with YAML syntax errors. The library's own recovery reads on past a
 * mistake in ways no author meant (an unclosed quote takes in the rest of the file), so each mistake is
 * found in turn and the block it is in (yaml-blocks.ts) blanked out, until the rest parses. Blanking keeps
 * every offset, so positions in what parsed are those of the file as written.
 */
import { LineCounter, parseDocument, type Document } from 'yaml';
import { blockAround } from './yaml-blocks.js';
import { explainFirst, type Mistake } from './yaml-mistakes.js';
import type { JsonPath } from './json-path.js';

/** A part of the file left unread. */
export interface Hole {
  /** The mapping that held it (which may now miss a key it requires); none for a second document. */
  parent?: JsonPath;
  /** Its text, as written. */
  text: string;
}

export interface Reading {
  doc: Document.Parsed;
  lineCounter: LineCounter;
  /** One per mistake, in file order of finding. */
  mistakes: Mistake[];
  holes: Hole[];
  /** False when no blanking made the rest parse: nothing of the file is read. */
  parsed: boolean;
}

/** More mistakes than this in one file, and the file is reported but not read. */
const MOST_MISTAKES = 20;

export function parseYaml(text: string): Reading {
  let current = text;
  const mistakes: Mistake[] = [];
  const holes: Hole[] = [];
  for (;;) {
    const lineCounter = new LineCounter();
    // Duplicate keys are found by source.ts with their positions, so the parser is told to keep them.
    const doc = parseDocument(current, { lineCounter, uniqueKeys: false, prettyErrors: false });
    if (doc.errors.length === 0) return { doc, lineCounter, mistakes, holes, parsed: true };
    if (mistakes.length === MOST_MISTAKES) return { doc, lineCounter, mistakes, holes, parsed: false };
    const mistake = explainFirst(current, doc, lineCounter);
    const lines = current.split('\n');
    const block = mistake.rest ? { from: mistake.line, to: lines.length - 1, parent: undefined } : blockAround(lines, mistake.line);
    const original = text.split('\n');
    holes.push({ parent: block.parent, text: original.slice(block.from, block.to + 1).join('\n') });
    mistakes.push(mistake);
    const blanked = lines.map((line, i) => (i >= block.from && i <= block.to ? line.replace(/[^\r]/g, ' ') : line)).join('\n');
    // A blanked block that leaves the same error in place would do so forever.
    if (blanked === current) return { doc, lineCounter, mistakes, holes, parsed: false };
    current = blanked;
  }
}
