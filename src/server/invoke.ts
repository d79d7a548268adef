/**
 * Runs one action's handler with its context: the typed payload, the store inside the call's transaction,
 * `emit` (checked against the events the action declares and their data schemas, and buffered until the
 * call commits) and the stream, when the caller asked for one.
 */
import type { EmittedEvent } from '../store/events.js';
import type { KeyRecord } from '../store/keys.js';
import type { Db, Mode } from '../store/schema.js';
import { newId, sha256 } from '../store/secrets.js';
import type { CallTransaction } from '../store/transaction.js';
import type { Catalogue } from '../core/catalogue.js';
import type { RoutedCall } from './call.js';
import type { EventName, HandlerContext, HandlerSettings, StreamSink } from '../core/context.js';
import type { Deadline } from './deadline.js';
import type { Providers } from '../providers/index.js';
import type { Runtime } from './runtime.js';
import { validatorOf } from './generated-module.js';

/** What one execution shares across the handlers it runs (one, or every request of an atomic batch). */
export interface Invocation {
  tx: CallTransaction;
  /** The events emitted so far, written when the transaction commits. */
  events: EmittedEvent[];
  deadline: Deadline;
  stream?: StreamSink;
  /** Set once a handler recorded an outside effect it starts (ctx.startOutsideEffect), until it drops it. */
  outsideEffect?: boolean;
}

const NO_STREAM: StreamSink = { active: false, delta() {}, progress() {}, event() {} };

export function invoke(call: RoutedCall, runtime: Runtime, invocation: Invocation): Promise<unknown> {
  const handler = runtime.handlers.get(call.action.id);
  if (!handler) throw new Error(`No handler serves ${call.action.id}.`);
  return handler(call.envelope.payload, new CallContext(call, runtime, invocation));
}

/**
 * A handler's context. A class rather than an object literal with getters, so that a call makes one small
 * object; the store and the signal are made only when a handler reads them.
 */
class CallContext implements HandlerContext<EventName> {
  readonly requestId: string;
  readonly mode: Mode;
  readonly entityId: string;
  readonly key: KeyRecord;
  readonly apiVersion: string;
  readonly catalogue: Catalogue;
  readonly idempotencyKey: string | undefined;
  readonly providers: Providers;
  readonly settings: HandlerSettings;
  readonly stream: StreamSink;
  readonly #call: RoutedCall;
  readonly #runtime: Runtime;
  readonly #invocation: Invocation;

  constructor(call: RoutedCall, runtime: Runtime, invocation: Invocation) {
    this.requestId = call.requestId;
    this.mode = call.mode;
    this.entityId = call.entityId;
    this.key = call.key;
    this.apiVersion = call.apiVersion;
    this.catalogue = runtime.catalogue;
    this.idempotencyKey = call.envelope.options.idempotencyKey;
    this.providers = runtime.providers;
    this.settings = runtime.settings;
    this.stream = invocation.stream ? declaredEventsOnly(invocation.stream, call.action) : NO_STREAM;
    this.#call = call;
    this.#runtime = runtime;
    this.#invocation = invocation;
  }

  service<T>(face: string): T | undefined {
    return this.#runtime.service<T>(face);
  }

  get signal(): AbortSignal {
    return this.#invocation.deadline.signal;
  }

  get deadline(): number {
    return this.#invocation.deadline.endsAt;
  }

  get db(): Db {
    return this.#invocation.tx.db;
  }

  get recoveryKey(): string | undefined {
    const claim = this.#call.idempotency;
    // One use of the key: a key used again after its record expired names new effects, never the old ones.
    return claim && sha256(`${claim.scope}\u0000${claim.key}\u0000${claim.since}`);
  }

  async startOutsideEffect(record?: (db: Db) => Promise<void>): Promise<void> {
    const invocation = this.#invocation;
    const before = invocation.outsideEffect;
    this.#beforeApart();
    // Marked before the commit: if the call ends meanwhile, its key is left to a retry, as the effect may be recorded.
    invocation.outsideEffect = true;
    try {
      if (record) await this.#runtime.db.transaction().execute(record);
    } catch (error) {
      // Rolled back: nothing of it is recorded.
      invocation.outsideEffect = before;
      throw error;
    }
  }

  async dropOutsideEffect(undo: (db: Db) => Promise<void>): Promise<void> {
    this.#beforeApart();
    await this.#runtime.db.transaction().execute(undo);
    this.#invocation.outsideEffect = false;
  }

  #beforeApart(): void {
    // On SQLite the call's own transaction would hold the one writer that a transaction apart waits for.
    if (this.#invocation.tx.begun) throw new Error(`${this.#call.action.id} committed apart after its first write.`);
    this.#invocation.deadline.throwIfStopped();
  }

  reportUnits(units: Record<string, number>): void {
    const call = this.#call;
    for (const [unit, amount] of Object.entries(units)) {
      // The generated types cannot see a unit name; a handler that reports one its cost does not price is a bug.
      if (call.action.cost.perUnit[unit] === undefined) throw new Error(`${call.action.id} reported unit "${unit}", which its cost does not price.`);
      if (!(Number.isFinite(amount) && amount >= 0)) throw new Error(`${call.action.id} reported ${amount} ${unit}; units are finite and not negative.`);
      call.units ??= {};
      call.units[unit] = (call.units[unit] ?? 0) + amount;
    }
  }

  emit(type: EventName, data: unknown, options?: { endpointId?: string }): string {
    const action = this.#call.action;
    const entry = this.#runtime.catalogue.eventTypes.get(type);
    // The generated types forbid both; this guards handlers that cast their way past them.
    if (!entry || !action.emits.includes(type)) throw new Error(`${action.id} emitted "${type}", which it does not declare.`);
    const validate = validatorOf(entry.validator);
    if (!validate(data)) throw new Error(`${action.id} emitted ${type} with data that does not match its schema: ${JSON.stringify(validate.errors)}`);
    const id = newId('evt');
    this.#invocation.events.push({ id, type, data, ...(options?.endpointId ? { endpointId: options.endpointId } : {}) });
    return id;
  }
}

/** The stream of a call whose `event` sends only the events its action declares: another is a bug of the handler. */
function declaredEventsOnly(sink: StreamSink, action: RoutedCall['action']): StreamSink {
  return {
    active: sink.active,
    delta: (text) => sink.delta(text),
    progress: (completed, total, message) => sink.progress(completed, total, message),
    event(name, data) {
      if (!action.streamEvents.includes(name)) throw new Error(`${action.id} sent the stream event "${name}", which it does not declare under streamEvents.`);
      return sink.event(name, data);
    },
  };
}
