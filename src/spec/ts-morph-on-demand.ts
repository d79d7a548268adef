/**
 * ts-morph, and with it the TypeScript compiler (about 0.2 s to load), loaded on first use: a generate whose
 * printed chunks and handler checks all come from the memo never needs it. A watch loads it as it starts,
 * so that its first edit does not wait for it.
 */
import { createRequire } from 'node:module';

let loaded: typeof import('ts-morph') | undefined;

export function tsMorph(): typeof import('ts-morph') {
  loaded ??= createRequire(import.meta.url)('ts-morph') as typeof import('ts-morph');
  return loaded;
}
