/**
 * `generated/server/modules.ts`: the face modules, one import per face from `src/faces/<face>/index.ts`, each
 * checked against its generated handler interface. Built-in faces (batch) have none.
 */
import type { Catalog } from '../spec/model.js';

export const MODULES_PATH = 'server/modules.ts';

export function emitModules(catalog: Catalog): string {
  const faces = catalog.faces.filter((f) => !f.builtin);
  const imports = faces.map((f) => `import { ${f.name} } from '../../src/faces/${f.name}/index.js';`);
  return [
    `import type { FaceModule } from '../../src/core/face-module.js';`,
    `import type { Handlers } from './types.js';`,
    ...imports,
    '',
    '/** Every face\'s module; a missing module, or handlers that do not match the face\'s interface, is a type error. */',
    `export const modules: { readonly [F in keyof Handlers]: FaceModule<Handlers[F], unknown> } = { ${faces.map((f) => f.name).join(', ')} };`,
    '',
  ].join('\n');
}
