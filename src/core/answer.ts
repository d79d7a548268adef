/**
 * A call's answer, and the work a module may do once it is decided (metrics, usage records): the part of a
 * call's state such work may read, without the server's pipeline types.
 */
import type { KeyRecord } from '../store/keys.js';
import type { Mode } from '../store/schema.js';
import type { ActionEntry } from './dispatch-types.js';

/** A complete answer to a call: what is sent, and what an idempotency record stores and replays. */
export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** What after-answer work sees of a call; any field the pipeline had not settled when the call ended is absent. */
export interface AnsweredCall {
  readonly requestId: string;
  /** `performance.now()` when the call (or the batch request) started. */
  readonly startedAt: number;
  readonly envelope?: { readonly face: string };
  readonly key?: KeyRecord;
  readonly mode?: Mode;
  readonly entityId?: string;
  readonly apiVersion?: string;
  readonly action?: ActionEntry;
  /** The answer is the stored reply of an earlier call with the same idempotency key. */
  readonly replayed?: boolean;
  /** What the handler reported through `ctx.reportUnits`, priced by the action's cost. */
  readonly units?: Readonly<Record<string, number>>;
  /** A `batch.run` call: whether one of its requests was answered (each is then counted as its own call). */
  readonly batch?: { readonly answered?: boolean };
}

/** Work done once a call's answer is decided: once per call and per batch request; it cannot change the answer. */
export type AfterAnswer = (call: AnsweredCall, reply: Reply) => void;
