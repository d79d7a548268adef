/**
 * The formatter's thread: formats TypeScript with prettier, loaded as the thread starts, while the generator's
 * own thread goes on emitting (see format-thread.ts).
 * Plain JavaScript, so that it starts the same from the sources and from the compiled program, without a
 * TypeScript loader.
 */
import { parentPort, workerData } from 'node:worker_threads';
import * as prettier from 'prettier';

parentPort.on('message', async ({ id, parser, text }) => {
  try {
    parentPort.postMessage({ id, text: await prettier.format(text, { ...workerData.options, parser }) });
  } catch (error) {
    parentPort.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
