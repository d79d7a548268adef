/**
 * `generated/client/index.ts`: the imports; one function per face that makes its object of methods
 * (client-methods.ts); then the constants, the `DispatchClient` class, whose face properties call those
 * functions (and, for the built-in batch face, its typed `batch()`), and `createClient`. A face's edit
 * reprints its own function, not the class.
 */
import { memoInProcess } from '../memo/memo.js';
import type { Platform } from '../spec/model.js';
import { methodsFunctionText } from './client-methods.js';
import { methodsFunction, propertyName, servedFaces, type BatchMethod, type ClientFace } from './client-model.js';
import { clientPackageOf } from './client-package.js';
import { pagingOf } from './client-paging.js';
import type { Formatted } from './format.js';
import { jsDoc, quoted } from './layout.js';
import { printStatements } from './print-declarations.js';
import { StructureKind } from './structure-kinds.js';

export const CLIENT_INDEX_PATH = 'client/index.ts';

/** index.ts in chunks: the imports, one function per face, then the client. */
export function clientIndex(faces: ClientFace[], platform: Platform, batch: BatchMethod | undefined): Formatted[] {
  const served = servedFaces(faces);
  // A face's function is printed from the face and the latest version, which decides its actions' payloads (see
  // clientFaces): a watch run reprints only the faces that changed.
  const methods = served.map(({ face, actions }) => memoInProcess('client-methods-face', { face, latest: platform.latest }, () => methodsFunctionText(face, actions)));
  return [imports(served, batch), ...methods, client(served, platform, batch)].map((formatted) => ({ formatted }));
}

/** What index.ts takes from the runtime and the types, and re-exports. */
function imports(served: ClientFace[], batch: BatchMethod | undefined): string {
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
  return printStatements([
    { kind: StructureKind.ImportDeclaration, moduleSpecifier: './runtime.js', namedImports: runtimeImports },
    { kind: StructureKind.ImportDeclaration, isTypeOnly: true, moduleSpecifier: './types.js', namedImports: typeNames.sort() },
    { kind: StructureKind.ExportDeclaration, moduleSpecifier: './runtime.js' },
    { kind: StructureKind.ExportDeclaration, moduleSpecifier: './types.js' },
    { kind: StructureKind.ExportDeclaration, moduleSpecifier: './webhooks.js' },
  ]);
}

/** The constants, the client class and `createClient`. */
function client(served: ClientFace[], platform: Platform, batch: BatchMethod | undefined): string {
  const { latest } = platform;
  const timeoutMax = platform.limits.timeout.max;
  const clientPackage = clientPackageOf(platform);
  const properties = served.flatMap(({ face }) => [...jsDoc([face.summary.trim()], '  '), `  readonly ${propertyName(face.name)} = ${methodsFunction(face)}(this);`]);
  const constructor = [
    '  constructor(options: ClientOptions) {',
    '    super({',
    '      userAgent: USER_AGENT,',
    '      timeoutMs: DEFAULT_TIMEOUT_MS,',
    '      ...options,',
    '      apiVersion: options.apiVersion ?? API_VERSION,',
    '    });',
    '  }',
  ];
  // Properties a line each, then the constructor and the methods, each set apart.
  const members = [properties, constructor, ...(batch ? [batchMember(batch)] : [])].filter((member) => member.length > 0);
  const lines = [
    ...jsDoc(['The API version this client was generated for, sent as `X-API-Version` unless a client or call names another.'], ''),
    `export const API_VERSION = ${quoted(latest)};`,
    ...jsDoc(
      [
        `How long a client waits for an answer unless told otherwise (\`timeoutMs\`): the server's longest time-out\n` +
          `(${timeoutMax} ms) plus 5 seconds, so that the server's own \`timeout\` error comes first.`,
      ],
      '',
    ),
    `export const DEFAULT_TIMEOUT_MS = ${timeoutMax + 5000};`,
    ...jsDoc(['What the client sends as `User-Agent`: its package and version.'], ''),
    `export const USER_AGENT = ${quoted(`${clientPackage.name}/${clientPackage.version}`)};`,
    '',
    ...jsDoc([`A typed client of \`POST /do\` for API version ${latest}: one property per face, one method per action.`], ''),
    'export class DispatchClient extends BaseClient {',
    ...members.flatMap((member, i) => (i === 0 ? member : ['', ...member])),
    '}',
    '',
    ...jsDoc(['Creates a client; `apiVersion` defaults to `API_VERSION`.'], ''),
    'export function createClient(options: ClientOptions): DispatchClient {',
    '  return new DispatchClient(options);',
    '}',
  ];
  return `${lines.join('\n')}\n`;
}

/** `client.batch()`: the batch face's `run`, typed request by request. */
function batchMember({ action }: BatchMethod): string[] {
  const docs = [
    `${action.summary.trim()} Each request is typed by its action, and so is its result.`,
    `Requires the \`${action.scope}\` scope, and each request's own.`,
    "Returns one result per request, in order: `{id, status, data}` or `{id, status, error}` (narrow with `'error' in r`).\n" +
      "`options.mode` defaults to `'bestEffort'`: it accepts every action, and a failed request fails neither the\n" +
      "others nor the call. `'atomic'` runs all or nothing and throws `DispatchError` (code `batch_aborted`, with\n" +
      '`details.results`) if one fails.',
  ].join('\n\n');
  return [
    ...jsDoc([docs], '  '),
    '  async batch<const R extends readonly BatchRequest[]>(',
    '    requests: R,',
    '    options: BatchOptions = {},',
    '  ): Promise<BatchResults<R>> {',
    "    const { mode = 'bestEffort', ...call } = options;",
    `    const data = await this.call<{ results: BatchResults<R> }>(${quoted(action.face)}, ${quoted(action.name)}, { mode, requests }, call);`,
    '    return data.results;',
    '  }',
  ];
}
