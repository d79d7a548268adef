/**
 * `generated/client/`: a typed client for the latest API version. The hand-written transport in
 * `templates/client/` is copied file by file; `types.ts` holds the payload, result and webhook event types as
 * a client sends and receives them; `index.ts` adds one method per action on a `DispatchClient` (with
 * `.stream()` on streaming actions) and, for the built-in batch face, a typed `batch()` method.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { StatementStructures } from 'ts-morph';
import { StructureKind, VariableDeclarationKind } from './structure-kinds.js';
import { fromRoot } from '../package-root.js';
import { materialize, payloadIn } from '../spec/json-schema.js';
import type { Action, Catalog, Face, JsonSchema, Platform } from '../spec/model.js';
import { STANDARD_ERRORS } from '../spec/standard-errors.js';
import { CLIENT_PACKAGE_PATH, clientPackageOf, emitClientPackage } from './client-package.js';
import { CLIENT_README_PATH, emitClientReadme } from './client-readme.js';
import { declaration, statementChunks } from './declarations.js';
import type { Formatted } from './format.js';
import { fits, IDENTIFIER, Unsupported } from './prettier-layout.js';
import { quoted } from './print-values.js';
import { typeOf, type TypeOptions } from './schema-to-type.js';

export const CLIENT_RUNTIME_PATH = 'client/runtime.ts';
export const CLIENT_TYPES_PATH = 'client/types.ts';
export const CLIENT_INDEX_PATH = 'client/index.ts';

/** Members of the client class that a face property would shadow. */
const CLASS_MEMBERS = new Set(['batch', 'call', 'callWithMeta', 'constructor', 'list', 'stream']);
/** Names `index.ts` exports besides the re-exported runtime and types. */
const INDEX_NAMES = ['DispatchClient', 'createClient', 'API_VERSION', 'DEFAULT_TIMEOUT_MS', 'USER_AGENT'];
/** Names `types.ts` exports besides those of faces, actions and events. */
const TYPE_NAMES = ['Actions', 'ErrorCode', 'EventTypes', 'WebhookEvent', 'WebhookEventOf'];
const BATCH_TYPE_NAMES = ['BatchRequest', 'BatchResultOf', 'BatchResults'];

const TEMPLATES = pathToFileURL(fromRoot('templates', 'client') + '/');
const templateCache = new Map<string, { mtimeMs: number; text: string }>();

/** The template files by name, read again only when they change on disk, so `generate --watch` picks up edits. */
function templates(): Map<string, string> {
  const files = new Map<string, string>();
  for (const name of readdirSync(TEMPLATES).filter((n) => n.endsWith('.ts')).sort()) {
    const url = new URL(name, TEMPLATES);
    const { mtimeMs } = statSync(url);
    let cached = templateCache.get(name);
    if (cached?.mtimeMs !== mtimeMs) templateCache.set(name, (cached = { mtimeMs, text: readFileSync(url, 'utf8') }));
    files.set(name, cached.text);
  }
  return files;
}

/** A face with the actions the latest version serves, each with its payload schema in that version. */
interface ClientFace {
  face: Face;
  actions: { action: Action; payload: JsonSchema }[];
}

/** The built-in batch face's `run` action, which becomes `client.batch()` instead of `client.batch.run()`. */
interface BatchMethod {
  action: Action;
}

/**
 * The client files, keyed by their path under `generated/`. Throws on a name the client could not hold.
 * `preformat` false leaves every chunk of `index.ts` as statements, for the test of the ones laid out here.
 */
export function emitClient(catalog: Catalog, preformat = true): Map<string, string | (StatementStructures[] | Formatted)[]> {
  const latest = catalog.platform.latest;
  const faces = catalog.faces
    .map((face): ClientFace => ({
      face,
      actions: face.actions.flatMap((action) => {
        const payload = payloadIn(action, latest);
        return payload ? [{ action, payload }] : [];
      }),
    }))
    .filter((f) => f.actions.length > 0 || f.face.events.length > 0);
  const batch = batchMethod(faces);
  checkNames(faces, batch);
  const files = new Map<string, string | (StatementStructures[] | Formatted)[]>();
  for (const [name, text] of templates()) files.set(`client/${name}`, text);
  files.set(CLIENT_PACKAGE_PATH, emitClientPackage(catalog.platform));
  files.set(CLIENT_README_PATH, emitClientReadme(catalog));
  const errorCodes = [...new Set([...STANDARD_ERRORS, ...catalog.faces.flatMap((f) => f.errors)].map((e) => e.code))].sort();
  files.set(CLIENT_TYPES_PATH, statementChunks(typeStatements(faces, latest, batch, errorCodes)));
  files.set(CLIENT_INDEX_PATH, indexStatements(faces, catalog.platform, batch, preformat).filter((chunk) => !Array.isArray(chunk) || chunk.length > 0));
  return files;
}

/**
 * Built-in faces are served by the runtime, not by handlers, and the client knows each one by name: today
 * only `batch`, whose `run` becomes the typed `client.batch()`. Any other built-in face is refused rather
 * than turned into a face property the client was never designed for.
 */
function batchMethod(faces: ClientFace[]): BatchMethod | undefined {
  let batch: BatchMethod | undefined;
  for (const { face, actions } of faces.filter((f) => f.face.builtin)) {
    const run = actions.find((a) => a.action.name === 'run');
    if (face.name !== 'batch' || !run || actions.length !== 1) {
      throw new Error(`The client has no method for built-in face ${face.name} (${actions.map((a) => a.action.id).join(', ')}).`);
    }
    batch = { action: run.action };
  }
  return batch;
}

/** types.ts in chunks: the imports, one per face, then the catalogue-wide types. */
function typeStatements(faces: ClientFace[], latest: string, batch: BatchMethod | undefined, errorCodes: string[]): StatementStructures[][] {
  const head: StatementStructures[] = [];
  const groups = [head];
  const ownStreamEvents = faces.some(({ actions }) => actions.some(({ action }) => action.streamEvents.length > 0));
  const runtimeTypes = [...(batch ? ['BatchItemResult'] : []), ...(ownStreamEvents ? ['StreamEvent'] : [])];
  if (runtimeTypes.length) {
    head.push({ kind: StructureKind.ImportDeclaration, isTypeOnly: true, moduleSpecifier: './runtime.js', namedImports: runtimeTypes });
  }
  for (const { face, actions } of faces) {
    const out: StatementStructures[] = [];
    groups.push(out);
    const options: TypeOptions = { server: false, refName: (name) => face.typeName + name };
    const named = Object.fromEntries(face.schemas.map((s) => [s.name, s.schema]));
    for (const { name, schema } of face.schemas) {
      out.push(declaration(face.typeName + name, withoutDefs(materialize(schema, latest, named)), options));
    }
    for (const { action, payload } of actions) {
      const served = `Payload of \`${action.id}\` in API version ${latest}.`;
      out.push(declaration(`${action.typeName}Payload`, withoutDefs(payload), options, [served]));
      out.push(declaration(`${action.typeName}Result`, withoutDefs(action.resultSchema), options, [`Result of \`${action.id}\`.`]));
      if (action.streamEvents.length) out.push(streamEventType(action, options));
    }
    for (const event of face.events) {
      const docs = [`Data of the \`${event.type}\` event: ${event.summary.trim()}`];
      out.push(declaration(`${event.typeName}Data`, withoutDefs(event.dataSchema), options, docs));
    }
  }
  const tail: StatementStructures[] = [];
  groups.push(tail);
  tail.push(
    {
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
    },
    ...eventStatements(faces),
    {
      kind: StructureKind.TypeAlias,
      name: 'ErrorCode',
      isExported: true,
      docs: ["Every error code the API answers with: the platform's and the faces' (the error catalogue in the docs)."],
      type: errorCodes.map((code) => JSON.stringify(code)).join(' | '),
    },
  );
  if (batch) tail.push(...batchStatements(faces));
  return groups;
}

/** `EventTypes` and the webhook event body of docs/contract.md § Webhooks, a union discriminated by `type`. */
function eventStatements(faces: ClientFace[]): StatementStructures[] {
  const envelope: [name: string, type: string, doc: string][] = [
    ['id', 'string', 'Event id (`evt_…`), also sent as `webhook-id`: deduplicate deliveries on it.'],
    ['type', 'K', 'The event type, `<face>.<noun>.<outcome>`.'],
    ['timestamp', 'string', 'When the event happened (ISO 8601).'],
    ['apiVersion', 'string', 'The API version of the request that caused it.'],
    ['livemode', 'boolean', 'True for live-mode data, false for test mode.'],
    ['entityId', 'string', 'The entity the event belongs to.'],
    ['request', '{ id: string; idempotencyKey: string | null }', 'The request that caused it, with its idempotency key if it had one.'],
    ['data', 'EventTypes[K]', "The event's data."],
  ];
  return [
    {
      kind: StructureKind.Interface,
      name: 'EventTypes',
      isExported: true,
      docs: ['Every webhook event type and the type of its data.'],
      properties: faces.flatMap(({ face }) => face.events.map((e) => ({ name: JSON.stringify(e.type), type: `${e.typeName}Data` }))),
    },
    {
      kind: StructureKind.Interface,
      name: 'WebhookEventOf',
      isExported: true,
      typeParameters: [{ name: 'K', constraint: 'keyof EventTypes' }],
      docs: ['The body of a webhook delivery of an event of type `K`.'],
      properties: envelope.map(([name, type, doc]) => ({ name, type, docs: [doc] })),
    },
    {
      kind: StructureKind.TypeAlias,
      name: 'WebhookEvent',
      isExported: true,
      docs: [
        'The body of any webhook delivery. After verifying the signature, parse the body as a `WebhookEvent` and\n' +
          'branch on `type`: each branch has the `data` of its event type.',
      ],
      type: '{ [K in keyof EventTypes]: WebhookEventOf<K> }[keyof EventTypes]',
    },
  ];
}

/** The typed requests and results of `client.batch()`: every action but the built-in faces' own. */
function batchStatements(faces: ClientFace[]): StatementStructures[] {
  const requests = faces
    .filter(({ face }) => !face.builtin)
    .flatMap(({ actions }) =>
      actions.map(({ action: a }) => `{ id?: string; face: ${JSON.stringify(a.face)}; action: ${JSON.stringify(a.name)}; payload: ${a.typeName}Payload }`),
    );
  return [
    {
      kind: StructureKind.TypeAlias,
      name: 'BatchRequest',
      isExported: true,
      docs: ['One request of `client.batch()`: an action and its payload. `id` defaults to its position: "0", "1", ...'],
      type: requests.join(' | ') || 'never',
    },
    {
      kind: StructureKind.TypeAlias,
      name: 'BatchResultOf',
      isExported: true,
      typeParameters: [{ name: 'R' }],
      docs: ['The outcome of batch request `R`: the result of its action, or the error it failed with.'],
      type:
        'R extends { face: infer F extends string; action: infer A extends string } ' +
        '? `${F}.${A}` extends infer K extends keyof Actions ? BatchItemResult<Actions[K]["result"]> : never : never',
    },
    {
      kind: StructureKind.TypeAlias,
      name: 'BatchResults',
      isExported: true,
      typeParameters: [{ name: 'R', constraint: 'readonly BatchRequest[]' }],
      docs: ['The outcomes of the requests `R` of a batch, in their order: a tuple for a tuple of requests.'],
      type: '{ -readonly [I in keyof R]: BatchResultOf<R[I]> }',
    },
  ];
}

/**
 * index.ts in chunks: the imports; one function per face that makes its object of methods; then the client
 * class, whose face properties call them. A face's edit reprints and reformats its own function, not the class.
 */
function indexStatements(faces: ClientFace[], platform: Platform, batch: BatchMethod | undefined, preformat: boolean): (StatementStructures[] | Formatted)[] {
  const latest = platform.latest;
  const timeoutMax = platform.limits.timeout.max;
  const clientPackage = clientPackageOf(platform);
  const served = faces.filter((f) => !f.face.builtin && f.actions.length > 0);
  const typeNames = served.flatMap(({ actions }) =>
    actions.flatMap(({ action: a }) => [`${a.typeName}Payload`, `${a.typeName}Result`, ...(a.streamEvents.length ? [`${a.typeName}StreamEvent`] : [])]),
  );
  if (batch) typeNames.push('BatchRequest', 'BatchResults');
  const streams = served.some(({ actions }) => actions.some(({ action }) => action.stream));
  const paged = served.some(({ actions }) => actions.some(({ action, payload }) => pagingOf(action, payload)));
  const called = served.some(({ actions }) => actions.some(({ action, payload }) => !pagingOf(action, payload)));
  const runtimeImports = [
    ...(called ? [{ name: 'ApiPromise', isTypeOnly: true }] : []),
    { name: 'BaseClient' },
    ...(batch ? [{ name: 'BatchOptions', isTypeOnly: true }] : []),
    { name: 'CallOptions', isTypeOnly: true },
    { name: 'ClientOptions', isTypeOnly: true },
    ...(streams ? [{ name: 'DispatchStream', isTypeOnly: true }] : []),
    ...(paged ? [{ name: 'PagePromise', isTypeOnly: true }] : []),
  ];
  const head: StatementStructures[] = [
    { kind: StructureKind.ImportDeclaration, moduleSpecifier: './runtime.js', namedImports: runtimeImports },
    { kind: StructureKind.ImportDeclaration, isTypeOnly: true, moduleSpecifier: './types.js', namedImports: typeNames.sort() },
    { kind: StructureKind.ExportDeclaration, moduleSpecifier: './runtime.js' },
    { kind: StructureKind.ExportDeclaration, moduleSpecifier: './types.js' },
    { kind: StructureKind.ExportDeclaration, moduleSpecifier: './webhooks.js' },
  ];
  const methods = served.map(
    ({ face, actions }): StatementStructures[] | Formatted =>
      (preformat ? methodsFunctionText(face, actions) : undefined) ?? [
        {
          kind: StructureKind.Function,
          name: methodsFunction(face),
          parameters: [{ name: 'client', type: 'BaseClient' }],
          statements: [`return {\n${actions.map(({ action, payload }) => method(action, payload)).join('\n')}\n};`],
        },
      ],
  );
  const tail: StatementStructures[] = [
    {
      kind: StructureKind.VariableStatement,
      isExported: true,
      declarationKind: VariableDeclarationKind.Const,
      docs: ['The API version this client was generated for, sent as `X-API-Version` unless a client or call names another.'],
      declarations: [{ name: 'API_VERSION', initializer: `'${latest}'` }],
    },
    {
      kind: StructureKind.VariableStatement,
      isExported: true,
      declarationKind: VariableDeclarationKind.Const,
      docs: [
        `How long a client waits for an answer unless told otherwise (\`timeoutMs\`): the server's longest time-out\n` +
          `(${timeoutMax} ms) plus 5 seconds, so that the server's own \`timeout\` error comes first.`,
      ],
      declarations: [{ name: 'DEFAULT_TIMEOUT_MS', initializer: String(timeoutMax + 5000) }],
    },
    {
      kind: StructureKind.VariableStatement,
      isExported: true,
      declarationKind: VariableDeclarationKind.Const,
      docs: ['What the client sends as `User-Agent`: its package and version.'],
      declarations: [{ name: 'USER_AGENT', initializer: `'${clientPackage.name}/${clientPackage.version}'` }],
    },
    {
      kind: StructureKind.Class,
      name: 'DispatchClient',
      isExported: true,
      extends: 'BaseClient',
      docs: [`A typed client of \`POST /do\` for API version ${latest}: one property per face, one method per action.`],
      properties: served.map(({ face, actions }) => ({
        name: propertyName(face.name),
        isReadonly: true,
        docs: [face.summary.trim()],
        initializer: `${methodsFunction(face)}(this)`,
      })),
      ctors: [
        {
          parameters: [{ name: 'options', type: 'ClientOptions' }],
          statements: ['super({ userAgent: USER_AGENT, timeoutMs: DEFAULT_TIMEOUT_MS, ...options, apiVersion: options.apiVersion ?? API_VERSION });'],
        },
      ],
      methods: batch ? [batchMember(batch)] : [],
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
  return [head, ...methods, tail];
}

/**
 * A face's function of methods as prettier lays it out, where it knows the layout of every method (see
 * methodLines): most of the client, which prettier then need not format.
 */
function methodsFunctionText(face: Face, actions: ClientFace['actions']): Formatted | undefined {
  if (actions.length === 0) return undefined;
  try {
    const lines = [`function ${methodsFunction(face)}(client: BaseClient) {`, '  return {', ...actions.flatMap(({ action, payload }) => methodLines(action, payload)), '  };', '}'];
    return { formatted: `${lines.join('\n')}\n` };
  } catch (error) {
    if (error instanceof Unsupported) return undefined;
    throw error;
  }
}

/** Where a face's methods stand in its object. */
const MEMBER_INDENT = '    ';

/**
 * A method as prettier lays it out in its face's object: its JSDoc re-indented, then its arrow function (see
 * arrowLines); a streaming action's `Object.assign(call, { stream })`, or `{ stream }` alone, one part a
 * line. A name that needs quotes, a line that does not fit even broken, or an `Object.assign` whose first
 * line would fit (prettier may then keep its object on that line) is left to prettier.
 */
function methodLines(action: Action, payload: JsonSchema): string[] {
  if (!IDENTIFIER.test(action.name)) throw new Unsupported();
  const { docs, param, returns, head, body, stream } = methodParts(action, payload, quoted);
  const [at, inner, innermost] = [MEMBER_INDENT, `${MEMBER_INDENT}  `, `${MEMBER_INDENT}    `];
  const key = `${action.name}: `;
  const comment = commentLines(docs, at);
  if (!stream) return [...comment, ...arrowLines(at, key, param, returns, body)];
  if (stream.only) return [...comment, `${at}${key}{`, ...commentLines(stream.docs, inner), ...arrowLines(inner, 'stream: ', param, stream.returns, stream.body), `${at}},`];
  if (fits(`${at}${key}Object.assign(${head} ${body}, {`)) throw new Unsupported();
  return [
    ...comment,
    `${at}${key}Object.assign(`,
    ...arrowLines(inner, '', param, returns, body),
    `${inner}{`,
    ...commentLines(stream.docs, innermost),
    ...arrowLines(innermost, 'stream: ', param, stream.returns, stream.body),
    `${inner}},`,
    `${at}),`,
  ];
}

/**
 * `key(param, options?: CallOptions): returns => body,` at `at`, as prettier lays it out: on its line where
 * it fits, else broken after the arrow, else its parameters too one a line; a body that does not fit on its
 * own line is prettier's.
 */
function arrowLines(at: string, key: string, param: string, returns: string, body: string): string[] {
  const inner = `${at}  `;
  const head = `${at}${key}(${param}, options?: CallOptions): ${returns} =>`;
  const lines = fits(`${head} ${body},`)
    ? [`${head} ${body},`]
    : fits(head)
      ? [head, `${inner}${body},`]
      : [`${at}${key}(`, `${inner}${param},`, `${inner}options?: CallOptions,`, `${at}): ${returns} =>`, `${inner}${body},`];
  if (!lines.every(fits)) throw new Unsupported();
  return lines;
}

/** A JSDoc comment as prettier sets it at `at`: its lines after the first one space in, each trimmed. */
const commentLines = (docs: string[], at: string) => jsDoc(docs).split('\n').map((line, i) => (i === 0 ? `${at}${line}` : `${at} ${line.trim()}`));

/**
 * What an action's method is made of, its strings spelled by `spell`: as JSON in the source prettier formats,
 * or as prettier quotes them in what is laid out here.
 */
function methodParts(action: Action, payload: JsonSchema, spell: (text: string) => string) {
  const docs = [action.summary.trim(), `Requires the \`${action.scope}\` scope.`];
  if (action.description) docs.push(withoutLinks(action.description.trim()));
  // An action whose payload needs nothing can be called without one, e.g. `client.keys.list()`. A payload
  // made of other schemas (allOf, a $ref) may require fields of theirs, so it is never taken as empty.
  const composed = ['allOf', 'anyOf', 'oneOf', '$ref'].some((keyword) => keyword in payload);
  const optional = payload.type === 'object' && !composed && !(Array.isArray(payload.required) && payload.required.length > 0);
  const param = `payload: ${action.typeName}Payload${optional ? ' = {}' : ''}`;
  const result = `${action.typeName}Result`;
  const args = `${spell(action.face)}, ${spell(action.name)}, payload, options`;
  const paging = pagingOf(action, payload, spell);
  if (paging) docs.push('Resolves to the first page; the page, and the returned promise, iterate every item of every page (`for await`).');
  const returns = `${paging ? 'PagePromise' : 'ApiPromise'}<${result}>`;
  const body = paging ? `client.list<${result}>(${args}, ${paging})` : `client.call<${result}>(${args})`;
  return { docs, param, returns, head: `(${param}, options?: CallOptions): ${returns} =>`, body, stream: action.stream ? streamParts(action, result, args, spell) : undefined };
}

/** A streaming action's `.stream()`: its JSDoc, its type and its call; `only` when the action answers only as a stream. */
function streamParts(action: Action, result: string, args: string, spell: (text: string) => string) {
  const own = action.streamEvents.map((e) => e.name);
  const named = ['start', 'delta', 'progress', ...own].map((n) => `\`${n}\``);
  const docs = [
    `Streams \`${action.id}\`: iterate the returned \`DispatchStream\` for its ${named.slice(0, -1).join(', ')} and ${named.at(-1)}\n` +
      'events; await it, or its `finalResult()`, for the result.',
  ];
  const types = own.length ? `${result}, ${action.typeName}StreamEvent` : result;
  const events = own.length ? `, [${own.map(spell).join(', ')}]` : '';
  return { docs, returns: `DispatchStream<${types}>`, body: `client.stream<${types}>(${args}${events})`, only: Boolean(action.streamOnly) };
}

/** The module's own function that makes a face's methods, e.g. `aiMethods`: lower camel case, so no type clashes with it. */
const methodsFunction = (face: Face) => `${face.typeName.charAt(0).toLowerCase()}${face.typeName.slice(1)}Methods`;

/**
 * One action as a member of its face's object, with its JSDoc: an arrow function, which for a streaming
 * action also carries `.stream()`.
 */
function method(action: Action, payload: JsonSchema): string {
  const { docs, param, head, body, stream } = methodParts(action, payload, JSON.stringify);
  const call = `${head} ${body}`;
  if (!stream) return `${jsDoc(docs)}\n${propertyName(action.name)}: ${call},`;
  const member = `${jsDoc(stream.docs)}\nstream: (${param}, options?: CallOptions): ${stream.returns} => ${stream.body},`;
  // An action that answers only as a stream has only `.stream()`: a plain call would always be refused.
  if (stream.only) return `${jsDoc(docs)}\n${propertyName(action.name)}: {\n${member}\n},`;
  return `${jsDoc(docs)}\n${propertyName(action.name)}: Object.assign(${call}, {\n${member}\n}),`;
}

/**
 * How a list action pages, as the runtime's `Paging` in TypeScript, or undefined for any other action: its
 * result is `{items, hasMore}`, and its payload takes `startingAfter` (the last item's `id`, or the field the
 * face file names as its `pageBy`) or, paging by cursor, `cursor` (the result's `nextCursor`). A streaming
 * action is never taken for one.
 */
export function pagingOf(action: Action, payload: JsonSchema, spell: (text: string) => string = JSON.stringify): string | undefined {
  const properties = (schema: JsonSchema) => (schema.properties ?? {}) as Record<string, JsonSchema>;
  const result = properties(action.resultSchema);
  if (action.stream || result.items?.type !== 'array' || result.hasMore?.type !== 'boolean') return undefined;
  const taken = properties(payload);
  if (taken.startingAfter !== undefined) return `{ after: ${spell(action.pageBy ?? 'id')} }`;
  if (taken.cursor !== undefined && result.nextCursor?.type === 'string') return '{ cursor: true }';
  return undefined;
}

function batchMember({ action }: BatchMethod) {
  return {
    name: 'batch',
    docs: [
      [
        `${action.summary.trim()} Each request is typed by its action, and so is its result.`,
        `Requires the \`${action.scope}\` scope, and each request's own.`,
        "Returns one result per request, in order: `{id, status, data}` or `{id, status, error}` (narrow with `'error' in r`).\n" +
          "`options.mode` defaults to `'bestEffort'`: it accepts every action, and a failed request fails neither the\n" +
          "others nor the call. `'atomic'` runs all or nothing and throws `DispatchError` (code `batch_aborted`, with\n" +
          '`details.results`) if one fails.',
      ].join('\n\n'),
    ],
    typeParameters: [{ name: 'const R', constraint: 'readonly BatchRequest[]' }],
    parameters: [
      { name: 'requests', type: 'R' },
      { name: 'options', type: 'BatchOptions', initializer: '{}' },
    ],
    returnType: 'Promise<BatchResults<R>>',
    isAsync: true,
    statements: [
      "const { mode = 'bestEffort', ...call } = options;",
      `const data = await this.call<{ results: BatchResults<R> }>(${JSON.stringify(action.face)}, ${JSON.stringify(action.name)}, { mode, requests }, call);`,
      'return data.results;',
    ],
  };
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
function checkNames(faces: ClientFace[], batch: BatchMethod | undefined): void {
  const owners = new Map<string, string>();
  const claim = (name: string, owner: string) => {
    const other = owners.get(name);
    if (other) throw new Error(`Client name clash: ${name} is both ${other} and ${owner}.`);
    owners.set(name, owner);
  };
  for (const [file, text] of templates()) {
    for (const match of text.matchAll(/^export (?:class|interface|type|function|const) (\w+)/gm)) claim(match[1]!, `an export of ${file}`);
  }
  for (const name of INDEX_NAMES) claim(name, 'a client export');
  for (const name of [...TYPE_NAMES, ...(batch ? BATCH_TYPE_NAMES : [])]) claim(name, 'a client type');
  for (const { face, actions } of faces) {
    if (!face.builtin && actions.length > 0 && CLASS_MEMBERS.has(face.name)) {
      throw new Error(`Face ${face.name} would shadow the client's ${face.name} method.`);
    }
    for (const s of face.schemas) claim(face.typeName + s.name, `schema ${s.name} of face ${face.name}`);
    for (const { action } of actions) {
      claim(`${action.typeName}Payload`, `the payload of ${action.id}`);
      claim(`${action.typeName}Result`, `the result of ${action.id}`);
      if (action.streamEvents.length) claim(`${action.typeName}StreamEvent`, `the stream events of ${action.id}`);
    }
    for (const event of face.events) claim(`${event.typeName}Data`, `the data of event ${event.type}`);
  }
}

/** The events a streaming action's stream shows: the common ones, and those it declares of its own. */
function streamEventType(action: Action, options: TypeOptions): StatementStructures {
  const own = action.streamEvents.map((e) => `| { event: ${JSON.stringify(e.name)}; data: ${typeOf(withoutDefs(e.dataSchema), options)} }`);
  const docs = [`The events of a \`${action.id}\` stream: ${action.streamEvents.map((e) => `\`${e.name}\` (${e.summary.trim()})`).join(', ')}, besides the common ones.`];
  return { kind: StructureKind.TypeAlias, name: `${action.typeName}StreamEvent`, isExported: true, docs, type: ['StreamEvent', ...own].join('\n') };
}
