/**
 * The state of one call as it moves through the pipeline stages, and the stage contract. Each stage reads
 * what earlier stages set and adds its own part; the narrowed types below say what a call holds once the
 * stages that fill it have run, and the assert helpers state it where a stage relies on it.
 */
import type { KeyRecord } from '../store/keys.js';
import type { Mode } from '../store/schema.js';
import type { Reply } from '../core/answer.js';
import type { StreamSink } from '../core/context.js';
import type { ActionEntry } from '../core/dispatch-types.js';
import type { PolicyCheck } from './rate-limit/limiter.js';
import type { Runtime } from './runtime.js';

export type { AfterAnswer, Reply } from '../core/answer.js';

/** The request body, once its shape is checked. */
export interface Envelope {
  face: string;
  action: string;
  payload: Record<string, unknown>;
  options: { timeout?: number; idempotencyKey?: string; version?: string; stream?: boolean };
}

/** Where a streaming call's handler reports, opened right before it runs. */
export interface StreamChannel {
  sink: StreamSink;
  /** Aborts when the client disconnects. */
  signal: AbortSignal;
}

/** A request of a batch, as a call of its own: its place in the batch. */
export interface BatchItemRef {
  /** The caller's id for the request, or its position. */
  readonly id: string;
  readonly index: number;
  /** In an atomic batch, where the request's rate-limit policies are collected, to be taken all at once. */
  readonly atomicLimits?: PolicyCheck[];
}

export interface CallState {
  readonly requestId: string;
  /** `performance.now()` when the request started; a batch request's clock starts when it runs. */
  startedAt: number;
  readonly headers: Record<string, string | string[] | undefined>;
  /** The headers as sent, name and value in turn (Node joins repeated ones in `headers`). */
  readonly rawHeaders?: readonly string[];
  /** The `{version}` of `POST /{version}/do`, if that path was used. */
  readonly pathVersion?: string;
  /** The `{face}.{action}` of `POST /do/{face}.{action}`, whose body is `{payload, options?}`. */
  readonly pathAction?: { face: string; action: string };
  /** The parsed JSON body, before its shape is checked. */
  readonly body?: unknown;
  envelope?: Envelope;
  key?: KeyRecord;
  mode?: Mode;
  entityId?: string;
  apiVersion?: string;
  action?: ActionEntry;
  /** The action's checks (generated/server/pipelines/), once routed. */
  checks?: ActionChecks;
  /** The caller asked for server-sent events (`options.stream` or `Accept: text/event-stream`). */
  stream?: boolean;
  /** Opens the server-sent-event answer (given by the HTTP layer for calls that may stream). */
  readonly openStream?: () => StreamChannel;
  /** Set on the requests of a batch. */
  readonly item?: BatchItemRef;
  /** The checked requests of a `batch.run` call. */
  batch?: PreparedBatch;
  idempotency?: IdempotencyClaim;
  /** The answer is the stored reply of an earlier call with the same idempotency key. */
  replayed?: boolean;
  /** What the handler reported through `ctx.reportUnits` (tokens, bytes, ...), priced by the action's cost. */
  units?: Record<string, number>;
  /** Headers every response to this call carries (Request-Id, X-API-Version, deprecation, ...). */
  readonly responseHeaders: Record<string, string>;
}

/** An action's checks once routed, as the generator wrote them: a stage that refuses by throwing or passes. */
export type ActionChecks = (call: CallState, runtime: Runtime) => void | Promise<void>;

/** A call whose body is checked. */
export interface ParsedCall extends CallState {
  envelope: Envelope;
}

/** A call past authentication, entity and version: who calls, for whom, in which version. */
export interface IdentifiedCall extends ParsedCall {
  key: KeyRecord;
  mode: Mode;
  entityId: string;
  apiVersion: string;
}

/** A call routed to the action it names, in its version. */
export interface RoutedCall extends IdentifiedCall {
  action: ActionEntry;
  checks: ActionChecks;
  stream: boolean;
}

/** A request of a batch: a call of its own under the batch's key, entity and version, sharing its request id. */
export type BatchItem = IdentifiedCall & { readonly item: BatchItemRef };

/** The checked requests of a `batch.run` call. */
export interface PreparedBatch {
  readonly mode: 'atomic' | 'bestEffort';
  readonly items: readonly BatchItem[];
  /** True once a request has been answered (and so counted): the batch is then not counted as a call itself. */
  answered?: boolean;
}

/** A routed `batch.run` call whose requests are checked. */
export interface BatchCall extends RoutedCall {
  batch: PreparedBatch;
}

/** The idempotency record a call claimed, to be completed with its reply. */
export interface IdempotencyClaim {
  scope: string;
  key: string;
  fingerprint: string;
  /** The lease the claim was taken with: it tells this claim from a later one that took the key over. */
  leaseUntil: string;
  /** When the use of the key this claim belongs to began: kept by a request that resumes it, new after expiry. */
  since: string;
}

/** States an invariant of the pipeline; breaking it is a fault of the server, never of the caller. */
export function invariant(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`Pipeline invariant broken: ${message}`);
}

export function assertParsed(call: CallState): asserts call is ParsedCall {
  invariant(call.envelope, 'the body is parsed before the stages that read it');
}

export function assertIdentified(call: CallState): asserts call is IdentifiedCall {
  invariant(call.envelope && call.key && call.mode && call.entityId && call.apiVersion, 'the key, entity and version are settled');
}

export function assertRouted(call: CallState): asserts call is RoutedCall {
  assertIdentified(call);
  invariant(call.action && call.checks && call.stream !== undefined, 'the call is routed');
}

export function isBatchCall(call: RoutedCall): call is BatchCall {
  return call.batch !== undefined;
}

/** A request of a batch as a call of its own, under the batch's identity; a batch's idempotency key names its events. */
export function batchItem(batch: IdentifiedCall, envelope: Pick<Envelope, 'face' | 'action' | 'payload'>, item: BatchItemRef): BatchItem {
  const { idempotencyKey } = batch.envelope.options;
  return {
    requestId: batch.requestId,
    startedAt: batch.startedAt,
    headers: {},
    envelope: { ...envelope, options: idempotencyKey === undefined ? {} : { idempotencyKey } },
    key: batch.key,
    mode: batch.mode,
    entityId: batch.entityId,
    apiVersion: batch.apiVersion,
    item,
    responseHeaders: {},
  };
}

export function header(call: CallState, name: string): string | undefined {
  const value = call.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
