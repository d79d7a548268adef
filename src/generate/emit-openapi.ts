import type { Catalog } from '../spec/model.js';
export const OPENAPI_PATH = 'openapi.json';
export function emitOpenApi(_catalog: Catalog): string {
  return '{}';
}
