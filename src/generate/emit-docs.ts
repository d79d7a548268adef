import type { Catalog } from '../spec/model.js';
export function emitDocs(_catalog: Catalog): Map<string, string> {
  return new Map();
}
