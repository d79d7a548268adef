/**
 * `generated/client/types.ts`: the payload, result and webhook event types as a client sends and receives
 * them in the latest version, the map of every action, the webhook event body, every error code, and the
 * typed requests and results of `client.batch()`.
 */
import { materialize } from '../spec/json-schema.js';
import { memoInProcess } from '../memo/memo.js';
import type { Action, Catalog, Face } from '../spec/model.js';
import { catalogErrors, retryableErrorCodes } from '../spec/action-errors.js';
import { withoutDefs, type BatchMethod, type ClientFace } from './client-model.js';
import { declaration, printedGroup, statementChunks } from './declarations.js';
import type { Formatted } from './format.js';
import { jsDoc } from './layout.js';
import type { Declaration } from './print-declarations.js';
import { typeOf, type TypeOptions } from './schema-to-type.js';
import { StructureKind } from './structure-kinds.js';
import { literal } from './ts-literal.js';

export const CLIENT_TYPES_PATH = 'client/types.ts';

/** types.ts in chunks: the imports, one per face, then the catalogue-wide types. */
export function clientTypes(catalog: Catalog, faces: ClientFace[], batch: BatchMethod | undefined): Formatted[] {
  const latest = catalog.platform.latest;
  const head: Declaration[] = [];
  const ownStreamEvents = faces.some(({ actions }) => actions.some(({ action }) => action.streamEvents.length > 0));
  const runtimeTypes = [...(batch ? ['BatchItemResult'] : []), ...(ownStreamEvents ? ['StreamEvent'] : [])];
  if (runtimeTypes.length) {
    head.push({ kind: StructureKind.ImportDeclaration, isTypeOnly: true, moduleSpecifier: './runtime.js', namedImports: runtimeTypes });
  }
  // A face's chunk is printed from the face and the latest version, which decides its actions' payloads (see
  // clientFaces): a watch run reprints only the faces that changed.
  const faceChunks = faces.map(({ face, actions }) => memoInProcess('client-types-face', { face, latest }, () => printedGroup(faceDeclarations(face, actions, latest))));
  const errorCodes = [...new Set(catalogErrors(catalog).map((e) => e.code))].sort();
  const tail: (Declaration | string)[] = [
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
    retryableCodesStatement(catalog),
    ...(batch ? batchStatements(faces) : []),
  ];
  return statementChunks([printedGroup(head), ...faceChunks, printedGroup(tail)]);
}

/**
 * `RETRYABLE_ERROR_CODES`: the codes the catalogue marks retryable (docs/contract.md § Errors), those for which a
 * retry of the same request can succeed; the runtime retries them, so the set follows the face files.
 */
function retryableCodesStatement(catalog: Catalog): string {
  const codes = retryableErrorCodes(catalog);
  return [
    ...jsDoc(['The error codes a retry of the same request can succeed for: the client retries these (and any 429).'], ''),
    'export const RETRYABLE_ERROR_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([',
    ...codes.map((code) => `  ${literal(code)},`),
    ']);',
  ].join('\n');
}

/** A face's types: its named schemas, its actions' payloads and results (and stream events), its events' data. */
function faceDeclarations(face: Face, actions: ClientFace['actions'], latest: string): Declaration[] {
  const out: Declaration[] = [];
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
  return out;
}

/** `EventTypes` and the webhook event body of docs/contract.md § Webhooks, a union discriminated by `type`. */
function eventStatements(faces: ClientFace[]): (Declaration | string)[] {
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
    // A mapped type, written out as it reads.
    [
      ...jsDoc(
        [
          'The body of any webhook delivery. After verifying the signature, parse the body as a `WebhookEvent` and\n' +
            'branch on `type`: each branch has the `data` of its event type.',
        ],
        '',
      ),
      'export type WebhookEvent = { [K in keyof EventTypes]: WebhookEventOf<K> }[keyof EventTypes];',
    ].join('\n'),
  ];
}

/** The typed requests and results of `client.batch()`: every action but the built-in faces' own. */
function batchStatements(faces: ClientFace[]): (Declaration | string)[] {
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
    // A conditional and a mapped type, written out as they read.
    [
      '/** The outcome of batch request `R`: the result of its action, or the error it failed with. */',
      'export type BatchResultOf<R> = R extends { face: infer F extends string; action: infer A extends string }',
      '  ? `${F}.${A}` extends infer K extends keyof Actions',
      "    ? BatchItemResult<Actions[K]['result']>",
      '    : never',
      '  : never;',
      '/** The outcomes of the requests `R` of a batch, in their order: a tuple for a tuple of requests. */',
      'export type BatchResults<R extends readonly BatchRequest[]> = { -readonly [I in keyof R]: BatchResultOf<R[I]> };',
    ].join('\n'),
  ];
}

/** The events a streaming action's stream shows: the common ones, and those it declares of its own. */
function streamEventType(action: Action, options: TypeOptions): Declaration {
  const own = action.streamEvents.map((e) => `| { event: ${JSON.stringify(e.name)}; data: ${typeOf(withoutDefs(e.dataSchema), options)} }`);
  const docs = [`The events of a \`${action.id}\` stream: ${action.streamEvents.map((e) => `\`${e.name}\` (${e.summary.trim()})`).join(', ')}, besides the common ones.`];
  return { kind: StructureKind.TypeAlias, name: `${action.typeName}StreamEvent`, isExported: true, docs, type: ['StreamEvent', ...own].join('\n') };
}
