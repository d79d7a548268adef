/**
 * The formatter's thread: formats TypeScript with prettier, loaded as the thread starts, while the generator's
 * own thread goes on emitting (see format-thread.ts); and prints the ts-morph statement structures that
 * print-structures.ts leaves to ts-morph, which it loads for the first of them.
 * Plain JavaScript, so that it starts the same from the sources and from the compiled program, without a
 * TypeScript loader.
 */
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import * as prettier from 'prettier';

// The TypeScript compiler under it takes a fifth of a second to load: here, not on the generator's thread, and
// only for the first chunk that print-structures.ts left to it.
let tsMorph;

/** The job's TypeScript: its text, or its prefix and then its statements as ts-morph prints them. */
function source({ text, prefix, statements }) {
  if (!statements) return text;
  tsMorph ??= createRequire(import.meta.url)('ts-morph');
  return prefix + tsMorph.printStructure({ kind: tsMorph.StructureKind.SourceFile, statements });
}

parentPort.on('message', async ({ id, parser, ...job }) => {
  try {
    parentPort.postMessage({ id, text: await prettier.format(source(job), { ...workerData.options, parser }) });
  } catch (error) {
    parentPort.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
