/**
 * `generated/client/`: a typed client for the latest API version. `runtime.ts` is the hand-written
 * transport from `templates/client/`, copied as is; `types.ts` holds the payload and result types as a
 * client sends and receives them; `index.ts` adds one method per action on a `DispatchClient`.
 */
import { readFileSync, statSync } from 'node:fs';
import { StructureKind, VariableDeclarationKind, type StatementStructures } from 'ts-morph';
import { materialize } from '../spec/json-schema.js';
import type { Action, Catalog, Face, JsonSchema } from '../spec/model.js';
import { declaration, printStatements } from './declarations.js';
import type { TypeOptions } from './schema-to-type.js';

export const CLIENT_RUNTIME_PATH = 'client/runtime.ts';
export const CLIENT_TYPES_PATH = 'client/types.ts';
export const CLIENT_INDEX_PATH = 'client/index.ts';

/** Members of the client class that a face property would shadow. */
const CLASS_MEMBERS = new Set(['call', 'callWithMeta', 'constructor']);
/** Names `index.ts` exports besides the re-exported runtime and types. */
const INDEX_NAMES = ['DispatchClient', 'createClient', 'API_VERSION', 'Actions'];
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

const RUNTIME_TEMPLATE = new URL('../../templates/client/runtime.ts', import.meta.url);
let runtimeCache: { mtimeMs: number; text: string } | undefined;

/** The runtime template, read again only when it changes on disk, so `generate --watch` picks up edits. */
function runtimeSource(): string {
  const { mtimeMs } = statSync(RUNTIME_TEMPLATE);
  if (runtimeCache?.mtimeMs !== mtimeMs) runtimeCache = { mtimeMs, text: readFileSync(RUNTIME_TEMPLATE, 'utf8') };
  return runtimeCache.text;
}

/** A face with the actions the latest version serves, each with its payload schema in that version. */
interface ClientFace {
  face: Face;
  actions: { action: Action; payload: JsonSchema }[];
}

/** The three client files, keyed by their path under `generated/`. Throws on a name the client could not hold. */
export function emitClient(catalog: Catalog): Map<string, string> {
  const latest = catalog.platform.latest;
  const faces = catalog.faces
    .map((face): ClientFace => ({
      face,
      actions: face.actions.flatMap((action) => {
        const variant = action.variants.find((v) => v.versions.includes(latest));
        return variant ? [{ action, payload: variant.schema }] : [];
      }),
    }))
    .filter((f) => f.actions.length > 0);
  checkNames(faces);
  return new Map([
    [CLIENT_RUNTIME_PATH, runtimeSource()],
    [CLIENT_TYPES_PATH, printStatements(CLIENT_TYPES_PATH, typeStatements(faces, latest))],
    [CLIENT_INDEX_PATH, printStatements(CLIENT_INDEX_PATH, indexStatements(faces, latest))],
  ]);
}

function typeStatements(faces: ClientFace[], latest: string): StatementStructures[] {
  const out: StatementStructures[] = [];
  for (const { face, actions } of faces) {
    const options: TypeOptions = { server: false, refName: (name) => face.typeName + name };
    const named = Object.fromEntries(face.schemas.map((s) => [s.name, s.schema]));
    for (const { name, schema } of face.schemas) {
      out.push(declaration(face.typeName + name, withoutDefs(materialize(schema, latest, named)), options));
    }
    for (const { action, payload } of actions) {
      const served = `Payload of \`${action.id}\` in API version ${latest}.`;
      out.push(declaration(`${action.typeName}Payload`, withoutDefs(payload), options, [served]));
      out.push(declaration(`${action.typeName}Result`, withoutDefs(action.resultSchema), options, [`Result of \`${action.id}\`.`]));
    }
  }
  out.push({
    kind: StructureKind.Interface,
    name: 'Actions',
    isExported: true,
    docs: ['Every action of the client by `face.action` id, with its payload and result types.'],
    properties: faces.flatMap(({ actions }) =>
      actions.map(({ action: a }) => ({
        name: JSON.stringify(a.id),
        type: `{ payload: ${a.typeName}Payload; result: ${a.typeName}Result }`,
      })),
    ),
  });
  return out;
}

function indexStatements(faces: ClientFace[], latest: string): StatementStructures[] {
  const typeNames = faces.flatMap(({ actions }) => actions.flatMap(({ action: a }) => [`${a.typeName}Payload`, `${a.typeName}Result`]));
  return [
    {
      kind: StructureKind.ImportDeclaration,
      moduleSpecifier: './runtime.js',
      namedImports: [{ name: 'BaseClient' }, { name: 'CallOptions', isTypeOnly: true }, { name: 'ClientOptions', isTypeOnly: true }],
    },
    { kind: StructureKind.ImportDeclaration, isTypeOnly: true, moduleSpecifier: './types.js', namedImports: typeNames.sort() },
    { kind: StructureKind.ExportDeclaration, moduleSpecifier: './runtime.js' },
    { kind: StructureKind.ExportDeclaration, moduleSpecifier: './types.js' },
    {
      kind: StructureKind.VariableStatement,
      isExported: true,
      declarationKind: VariableDeclarationKind.Const,
      docs: ['The API version this client was generated for, sent as `X-API-Version` unless a client or call names another.'],
      declarations: [{ name: 'API_VERSION', initializer: `'${latest}'` }],
    },
    {
      kind: StructureKind.Class,
      name: 'DispatchClient',
      isExported: true,
      extends: 'BaseClient',
      docs: [`A typed client of \`POST /do\` for API version ${latest}: one property per face, one method per action.`],
      properties: faces.map(({ face, actions }) => ({
        name: propertyName(face.name),
        isReadonly: true,
        docs: [face.summary.trim()],
        initializer: `{\n${actions.map(({ action, payload }) => method(action, payload)).join('\n')}\n}`,
      })),
      ctors: [
        {
          parameters: [{ name: 'options', type: 'ClientOptions' }],
          statements: ['super({ ...options, apiVersion: options.apiVersion ?? API_VERSION });'],
        },
      ],
    },
    {
      kind: StructureKind.Function,
      name: 'createClient',
      isExported: true,
      docs: ['Creates a client; `apiVersion` defaults to `API_VERSION`.'],
      parameters: [{ name: 'options', type: 'ClientOptions' }],
      returnType: 'DispatchClient',
      statements: ['return new DispatchClient(options);'],
    },
  ];
}

/** One action as an arrow-function member of its face's object, with its JSDoc. */
function method(action: Action, payload: JsonSchema): string {
  const docs = [action.summary.trim(), `Requires the \`${action.scope}\` scope.`];
  if (action.description) docs.push(withoutLinks(action.description.trim()));
  // An action whose payload needs nothing can be called without one, e.g. `client.keys.list()`.
  const optional = payload.type === 'object' && !(Array.isArray(payload.required) && payload.required.length > 0);
  const param = `payload: ${action.typeName}Payload${optional ? ' = {}' : ''}`;
  const result = `${action.typeName}Result`;
  const call = `this.call<${result}>(${JSON.stringify(action.face)}, ${JSON.stringify(action.name)}, payload, options)`;
  return `${jsDoc(docs)}\n${propertyName(action.name)}: (${param}, options?: CallOptions): Promise<${result}> => ${call},`;
}

function jsDoc(paragraphs: string[]): string {
  const lines = paragraphs.join('\n\n').replace(/\*\//g, '*\\/').split('\n');
  return ['/**', ...lines.map((line) => (line ? ` * ${line}` : ' *')), ' */'].join('\n');
}

/** Markdown links become their text: the docs site's relative links mean nothing in an editor. */
function withoutLinks(text: string): string {
  return text.replace(/\[([^\]]+)\]\([^)]*\)/g, '$1');
}

function withoutDefs(schema: JsonSchema): JsonSchema {
  const { $defs: _defs, ...rest } = schema;
  return rest;
}

function propertyName(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

/**
 * Fails on names the generated modules could not hold apart: a face shadowing a client method, or two
 * exported types (or a type and a runtime export, since `index.ts` re-exports both) with one name.
 */
function checkNames(faces: ClientFace[]): void {
  const owners = new Map<string, string>();
  const claim = (name: string, owner: string) => {
    const other = owners.get(name);
    if (other) throw new Error(`Client name clash: ${name} is both ${other} and ${owner}.`);
    owners.set(name, owner);
  };
  for (const match of runtimeSource().matchAll(/^export (?:class|interface|type|function|const) (\w+)/gm)) {
    claim(match[1]!, 'a runtime export');
  }
  for (const name of INDEX_NAMES) claim(name, 'a client export');
  for (const { face, actions } of faces) {
    if (CLASS_MEMBERS.has(face.name)) throw new Error(`Face ${face.name} would shadow the client's ${face.name} method.`);
    for (const s of face.schemas) claim(face.typeName + s.name, `schema ${s.name} of face ${face.name}`);
    for (const { action } of actions) {
      claim(`${action.typeName}Payload`, `the payload of ${action.id}`);
      claim(`${action.typeName}Result`, `the result of ${action.id}`);
    }
  }
}
