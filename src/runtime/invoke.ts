/**
 * Runs one action's handler with its context: the typed payload, the store inside the call's transaction,
 * `emit` (checked against the events the action declares and their data schemas, and buffered until the
 * call commits) and the stream, when the caller asked for one.
 */
import { eventTypes } from '../../generated/server/dispatch.js';
import { handlers } from '../../generated/server/handlers.js';
import type { EmittedEvent } from '../store/events.js';
import type { CallTransaction } from '../store/transaction.js';
import type { CallState, RuntimeDeps } from './call.js';
import type { EventName, HandlerContext, StreamSink } from './context.js';
import { newId } from './secrets.js';

type AnyHandler = (payload: unknown, ctx: HandlerContext<EventName>) => Promise<unknown>;

/** What one execution shares across the handlers it runs (one, or every request of an atomic batch). */
export interface Invocation {
  tx: CallTransaction;
  /** The events emitted so far, written when the transaction commits. */
  events: EmittedEvent[];
  signal: AbortSignal;
  stream?: StreamSink;
}

const NO_STREAM: StreamSink = { active: false, delta() {}, progress() {} };

export function invoke(call: CallState, deps: RuntimeDeps, invocation: Invocation): Promise<unknown> {
  const action = call.action!;
  const handler = (handlers as unknown as Record<string, Record<string, AnyHandler>>)[action.face]![action.name]!;
  const ctx: HandlerContext<EventName> = {
    requestId: call.requestId,
    mode: call.mode!,
    entityId: call.entityId!,
    key: call.key!,
    apiVersion: call.apiVersion!,
    idempotencyKey: call.envelope.options.idempotencyKey,
    signal: invocation.signal,
    get db() {
      return invocation.tx.db;
    },
    providers: deps.providers,
    settings: deps.settings,
    emit(type, data, options) {
      const entry = eventTypes.get(type);
      // The generated types forbid both; this guards handlers that cast their way past them.
      if (!entry || !action.emits.includes(type)) throw new Error(`${action.id} emitted "${type}", which it does not declare.`);
      if (!entry.validate(data)) throw new Error(`${action.id} emitted ${type} with data that does not match its schema: ${JSON.stringify(entry.validate.errors)}`);
      const id = newId('evt');
      invocation.events.push({ id, type, data, ...(options?.endpointId ? { endpointId: options.endpointId } : {}) });
      return id;
    },
    stream: invocation.stream ?? NO_STREAM,
  };
  return handler(call.envelope.payload, ctx);
}
