/**
 * `generated/server/types.ts`: payload, result and event data types as the server sees them (every field of
 * every served version; defaults filled in by validation), the event map that types `ctx.emit`, and one
 * handler interface per face, whose context allows exactly the events each action declares. A face without a
 * handler module, or a handler without an action's method, fails to type-check.
 */
import { StructureKind } from './structure-kinds.js';
import type { Catalog, Face } from '../spec/model.js';
import { memoInProcess } from '../memo/memo.js';
import { declaration, printedGroup, statementChunks } from './declarations.js';
import type { Formatted } from './format.js';
import type { Declaration } from './print-declarations.js';
import type { TypeOptions } from './schema-to-type.js';

export const SERVER_TYPES_PATH = 'server/types.ts';

/** The file in chunks: the import, one per face, then the catalogue-wide interfaces. */
export function emitServerTypes(catalog: Catalog): Formatted[] {
  const head: Declaration[] = [
    {
      kind: StructureKind.ImportDeclaration,
      isTypeOnly: true,
      moduleSpecifier: '../../src/core/context.js',
      namedImports: ['HandlerContext'],
    },
  ];
  const tail: Declaration[] = [];
  tail.push({
    kind: StructureKind.Interface,
    name: 'EventTypes',
    isExported: true,
    docs: ['Every event type and the type of its data; `ctx.emit` is checked against it.'],
    properties: catalog.faces.flatMap((f) => f.events.map((e) => ({ name: JSON.stringify(e.type), type: `${e.typeName}Data` }))),
  });
  tail.push({
    kind: StructureKind.Interface,
    name: 'Handlers',
    isExported: true,
    docs: ['Every face and its handlers; the module `src/faces/<face>/` serves each entry. Built-in faces (batch) have none.'],
    properties: catalog.faces.filter((f) => !f.builtin).map((f) => ({ name: f.name, type: `${f.typeName}Handlers` })),
  });
  // A face's chunk is printed from the face alone: a watch run reprints only the faces that changed.
  const faces = catalog.faces.map((face) => memoInProcess('server-types-face', { face }, () => printedGroup(faceStatements(face))));
  return statementChunks([printedGroup(head), ...faces, printedGroup(tail)]);
}

function faceStatements(face: Face): Declaration[] {
  const options: TypeOptions = { server: true, refName: (name) => face.typeName + name };
  const out: Declaration[] = face.schemas.map((s) => declaration(face.typeName + s.name, s.schema, options));
  for (const action of face.actions) {
    const range = action.until ? `Served from ${action.since} until ${action.until}.` : `Served since ${action.since}.`;
    out.push(declaration(`${action.typeName}Payload`, action.payload, options, [`Payload of \`${action.id}\`. ${range}`]));
    out.push(declaration(`${action.typeName}Result`, action.result, options, [`Result of \`${action.id}\`.`]));
  }
  // Handlers produce event data, so fields with a default are not filled in for them: the client's view.
  const produced: TypeOptions = { ...options, server: false };
  for (const event of face.events) {
    out.push(declaration(`${event.typeName}Data`, event.data, produced, [`Data of the \`${event.type}\` event: ${event.summary.trim()}`]));
  }
  if (face.builtin) return out;
  out.push({
    kind: StructureKind.Interface,
    name: `${face.typeName}Handlers`,
    isExported: true,
    docs: [`Handlers of the \`${face.name}\` face, implemented in \`src/faces/${face.name}/handlers.ts\`.`],
    methods: face.actions.map((a) => ({
      name: a.name,
      docs: [a.summary],
      parameters: [
        { name: 'payload', type: `${a.typeName}Payload` },
        { name: 'ctx', type: a.emits.length ? `HandlerContext<${a.emits.map((e) => JSON.stringify(e)).join(' | ')}>` : 'HandlerContext' },
      ],
      returnType: `Promise<${a.typeName}Result>`,
    })),
  });
  return out;
}
