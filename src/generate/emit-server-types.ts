/**
 * `generated/server/types.ts`: payload and result types as the server sees them (every field of every
 * served version; defaults filled in by validation) and one handler interface per face. A face without a
 * handler module, or a handler without an action's method, fails to type-check.
 */
import { StructureKind, type StatementStructures } from 'ts-morph';
import type { Catalog, Face } from '../spec/model.js';
import { declaration, printStatements } from './declarations.js';
import type { TypeOptions } from './schema-to-type.js';

export const SERVER_TYPES_PATH = 'server/types.ts';

export function emitServerTypes(catalog: Catalog): string {
  const statements: StatementStructures[] = [
    {
      kind: StructureKind.ImportDeclaration,
      isTypeOnly: true,
      moduleSpecifier: '../../src/runtime/context.js',
      namedImports: ['HandlerContext'],
    },
  ];
  for (const face of catalog.faces) statements.push(...faceStatements(face));
  statements.push({
    kind: StructureKind.Interface,
    name: 'Handlers',
    isExported: true,
    docs: ['Every face and its handlers; `src/faces/<face>.ts` exports each entry.'],
    properties: catalog.faces.map((f) => ({ name: f.name, type: `${f.typeName}Handlers` })),
  });
  return printStatements(SERVER_TYPES_PATH, statements);
}

function faceStatements(face: Face): StatementStructures[] {
  const options: TypeOptions = { server: true, refName: (name) => face.typeName + name };
  const out: StatementStructures[] = face.schemas.map((s) => declaration(face.typeName + s.name, s.schema, options));
  for (const action of face.actions) {
    const range = action.until ? `Served from ${action.since} until ${action.until}.` : `Served since ${action.since}.`;
    out.push(declaration(`${action.typeName}Payload`, action.payload, options, [`Payload of \`${action.id}\`. ${range}`]));
    out.push(declaration(`${action.typeName}Result`, action.result, options, [`Result of \`${action.id}\`.`]));
  }
  out.push({
    kind: StructureKind.Interface,
    name: `${face.typeName}Handlers`,
    isExported: true,
    docs: [`Handlers of the \`${face.name}\` face, implemented in \`src/faces/${face.name}.ts\`.`],
    methods: face.actions.map((a) => ({
      name: a.name,
      docs: [a.summary],
      parameters: [
        { name: 'payload', type: `${a.typeName}Payload` },
        { name: 'ctx', type: 'HandlerContext' },
      ],
      returnType: `Promise<${a.typeName}Result>`,
    })),
  });
  return out;
}
