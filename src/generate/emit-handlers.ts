/**
 * `generated/server/handlers.ts`: the registry of handler modules, one import per face from
 * `src/faces/<face>.ts`, checked against the generated `Handlers` interface. Built-in faces (batch) have none.
 */
import type { Catalog } from '../spec/model.js';

export const HANDLERS_PATH = 'server/handlers.ts';

export function emitHandlers(catalog: Catalog): string {
  const faces = catalog.faces.filter((f) => !f.builtin);
  const imports = faces.map((f) => `import { ${f.name} } from '../../src/faces/${f.name}.js';`);
  return [
    `import type { Handlers } from './types.js';`,
    ...imports,
    '',
    '/** Every face and its handlers; a missing module or method is a type error. */',
    `export const handlers: Handlers = { ${faces.map((f) => f.name).join(', ')} };`,
    '',
  ].join('\n');
}
