/**
 * What a handler receives besides its payload. Handlers are typed against this through the generated
 * handler interfaces (`generated/server/types.ts`): `E` is the union of the events the action declares
 * (`emits`), so emitting an undeclared event, or an event with the wrong data, fails to type-check.
 */
import type { EventTypes } from '../../generated/server/types.js';
import type { Providers } from '../providers/index.js';
import type { ModelInfo } from '../providers/model-list.js';
import type { EventEntry, PlatformData, ScopeEntry } from './dispatch-types.js';
import type { ErrorTable } from './errors.js';
import type { KeyRecord } from '../store/keys.js';
import type { Db, Mode } from '../store/schema.js';

export type EventName = keyof EventTypes;

/** A handler as the runtime calls it; the generated interfaces type each one's payload and result. */
export type AnyHandler = (payload: unknown, ctx: HandlerContext<EventName>) => Promise<unknown>;

/** What a handler may read of the catalogue its server serves (never `generated/` at load: a server may serve another). */
export interface ServedCatalogue {
  readonly platform: PlatformData;
  readonly scopes: ReadonlyMap<string, ScopeEntry>;
  readonly eventTypes: ReadonlyMap<string, EventEntry>;
  /** Its error codes: what a code a handler caught means here (`meaningOf`). */
  readonly errors: ErrorTable;
}

/** Where a streaming action reports as it goes (docs/contract.md § Streaming). Without a stream every method does nothing. */
export interface StreamSink {
  /** True when the caller asked for a stream; a handler may skip preparing what nobody receives. */
  readonly active: boolean;
  /**
   * A piece of generated text; the pieces concatenate to the result's text. Returns a promise while the
   * client is behind (its connection's buffer is full): await it before producing more.
   */
  delta(text: string): void | Promise<void>;
  /** How far a long task is; a promise while the client is behind, as for `delta`. */
  progress(completed: number, total: number, message?: string): void | Promise<void>;
  /**
   * An event of the action's own, declared under its `streamEvents` (such as `usage.live`'s `record`); a
   * promise while the client is behind, as for `delta`.
   */
  event(name: string, data: unknown): void | Promise<void>;
}

/** Settings from the environment that handlers act on. */
export interface HandlerSettings {
  /** What `ai.models` lists in each mode; no live list without a live model provider. */
  readonly aiModels: { readonly test: readonly ModelInfo[]; readonly live?: readonly ModelInfo[] };
}

export interface HandlerContext<E extends EventName = never> {
  readonly requestId: string;
  /** Test keys see only test data and use sandbox backends; live keys only live data. */
  readonly mode: Mode;
  /** Every record a handler reads or writes is partitioned by (mode, entityId). */
  readonly entityId: string;
  /** The key that made the call. */
  readonly key: KeyRecord;
  /** The resolved API version (`YYYY-MM-DD`). */
  readonly apiVersion: string;
  /** The catalogue the server serves: its platform (tiers, versions, currency), scopes, event types and error codes. */
  readonly catalogue: ServedCatalogue;
  /** The idempotency key of the call, if it has one. */
  readonly idempotencyKey: string | undefined;
  /** Fires when the time-out expires or a streaming client goes away; pass it to every I/O call. */
  readonly signal: AbortSignal;
  /** When the call's time-out passes (ms since the epoch): a handler that follows something ends before it. */
  readonly deadline: number;
  /**
   * The store, inside the call's transaction (begun on the first query): everything written commits with
   * the call's events when the handler succeeds, and rolls back when it fails or an atomic batch aborts.
   */
  readonly db: Db;
  readonly providers: Providers;
  /**
   * The service another face's module offers (`RunningModule.service`), by that face: how a face uses
   * another (billing charging through payments) without reaching into its tables. Undefined when that face
   * is not served here.
   */
  service<T>(face: string): T | undefined;
  readonly settings: HandlerSettings;
  /**
   * Emits an event and returns its id (`evt_…`). It is stored with the call's effects when the handler
   * succeeds (never when it fails) and delivered to every webhook endpoint of the entity that subscribes to
   * it, or only to `endpointId`.
   */
  emit<T extends E>(type: T, data: EventTypes[T], options?: { endpointId?: string }): string;
  /**
   * Names the call for the outside effects it starts (a charge, a refund), so that a retry under the same
   * idempotency key finds and resumes them: a digest of the key, its scope and this use of it (a key used again
   * after its record expired names new effects). Undefined without a key, and
   * for the requests of a batch (whose answer is stored whole).
   */
  readonly recoveryKey: string | undefined;
  /**
   * Commits `record` at once, in a transaction of its own, before an outside effect starts: its recovery
   * point (docs/calling.md § Idempotency), which the call's failure does not roll back. From then on a failed call
   * stores no answer under its idempotency key: the same call under the key runs again and resumes the
   * effect. Without `record`, the call resumes an effect recorded before. Only before the call's first
   * write (the call's own transaction would hold the store).
   */
  startOutsideEffect(record?: (db: Db) => Promise<void>): Promise<void>;
  /**
   * Commits `undo` at once, in a transaction of its own: the outside effect certainly did not happen (the
   * outside refused it before acting), and the call fails as one that started none.
   */
  dropOutsideEffect(undo: (db: Db) => Promise<void>): Promise<void>;
  /**
   * Reports what the call used, in the units its action's `cost.perUnit` prices (e.g. `inputTokens`): the
   * amounts add up over the call, and the usage record prices them.
   */
  reportUnits(units: Record<string, number>): void;
  readonly stream: StreamSink;
}
