/**
 * ts-morph, and with it the TypeScript compiler (about 0.2 s to load), loaded on first use by the handler
 * checks: a generate whose handler checks all come from the memo never needs it here. (The emitters print
 * on the formatter's thread, which loads its own.) A watch over handler modules loads it as it starts, so
 * that its first edit of a handler does not wait for it.
 */
import { createRequire } from 'node:module';

let loaded: typeof import('ts-morph') | undefined;

export function tsMorph(): typeof import('ts-morph') {
  loaded ??= createRequire(import.meta.url)('ts-morph') as typeof import('ts-morph');
  return loaded;
}
