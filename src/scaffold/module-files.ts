/**
 * The module side of `dispatch new face`: `src/faces/<face>/index.ts`, the one value the server is given for
 * the face (its handlers, and its tables' migrations), and `tables.ts`, where the face's own tables and their
 * migrations are declared as the face grows them (empty at first).
 */
export interface NewModuleIndex {
  face: string;
  /** The face's type name, e.g. `Widgets` for `WidgetsHandlers`. */
  typeName: string;
  /** Import specifier of the generated server types, relative to the module. */
  typesModule: string;
}

export function newModuleIndex(input: NewModuleIndex): string {
  return [
    '/**',
    ` * The \`${input.face}\` face module: its handlers (handlers.ts) and its own tables (tables.ts). Background work,`,
    ' * routes of its own and settings join here as `start` and `settings` (src/core/face-module.ts).',
    ' */',
    `import type { ${input.typeName}Handlers } from '${input.typesModule}';`,
    `import type { FaceModule } from '../../core/face-module.js';`,
    `import { handlers } from './handlers.js';`,
    `import { migrations } from './tables.js';`,
    '',
    `export const ${input.face}: FaceModule<${input.typeName}Handlers> = { face: '${input.face}', handlers, migrations };`,
    '',
  ].join('\n');
}

export function newTablesFile(face: string): string {
  return [
    '/**',
    ` * The \`${face}\` face's own tables: none yet. A table is declared here by adding it to the store's \`Database\``,
    " * (`declare module '../../store/schema.js' { interface Database { ... } }`), and made by a migration below,",
    ' * named by its place in the one order of every migration (`NNNN_<what>`, after the newest in use).',
    ' */',
    `import type { ModuleMigration } from '../../core/face-module.js';`,
    '',
    'export const migrations: readonly ModuleMigration[] = [];',
    '',
  ].join('\n');
}
