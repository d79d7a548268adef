/**
 * The formatter's thread: prints ts-morph statement structures and formats TypeScript with prettier, both
 * loaded once as the thread starts, while the generator's own thread goes on emitting (see format-thread.ts).
 * Plain JavaScript, so that it starts the same from the sources and from the compiled program, without a
 * TypeScript loader.
 */
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import * as prettier from 'prettier';

// The TypeScript compiler under it takes a fifth of a second to load: here, not on the generator's thread.
const tsMorph = createRequire(import.meta.url)('ts-morph');

/** The job's TypeScript: its text, or its prefix and then its statements as ts-morph prints them. */
const source = ({ text, prefix, statements }) =>
  statements ? prefix + tsMorph.printStructure({ kind: tsMorph.StructureKind.SourceFile, statements }) : text;

parentPort.on('message', async ({ id, parser, ...job }) => {
  try {
    parentPort.postMessage({ id, text: await prettier.format(source(job), { ...workerData.options, parser }) });
  } catch (error) {
    parentPort.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
