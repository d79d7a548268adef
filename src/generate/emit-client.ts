import type { Catalog } from '../spec/model.js';
export function emitClient(_catalog: Catalog): Map<string, string> {
  return new Map();
}
