/**
 * The state of one call as it moves through the pipeline stages. Each stage reads what earlier stages
 * set and adds its own part; a stage that refuses the call throws an ApiError.
 */
import type { ValidateFunction } from 'ajv';
import type { Providers } from '../providers/index.js';
import type { CommitGroup } from '../store/commit-group.js';
import type { KeyRecord } from '../store/keys.js';
import type { Db, Mode } from '../store/schema.js';
import type { PreparedBatch } from './batch.js';
import type { HandlerSettings } from './context.js';
import type { ActionEntry } from './dispatch-types.js';
import type { KeyCache } from './key-cache.js';
import type { RateLimiter } from './rate-limit/limiter.js';

/** The request body, once its shape is checked. */
export interface Envelope {
  face: string;
  action: string;
  payload: Record<string, unknown>;
  options: { timeout?: number; idempotencyKey?: string; version?: string; stream?: boolean };
}

export interface CallState {
  readonly requestId: string;
  /** `performance.now()` when the request arrived. */
  readonly startedAt: number;
  readonly headers: Record<string, string | string[] | undefined>;
  /** The `{version}` of `POST /{version}/do`, if that path was used. */
  readonly pathVersion?: string;
  envelope: Envelope;
  key?: KeyRecord;
  mode?: Mode;
  entityId?: string;
  apiVersion?: string;
  action?: ActionEntry;
  validate?: ValidateFunction;
  /** The caller asked for server-sent events (`options.stream` or `Accept: text/event-stream`). */
  stream?: boolean;
  /** The checked requests of a `batch.run` call. */
  batch?: PreparedBatch;
  idempotency?: IdempotencyClaim;
  /** Headers every response to this call carries (Request-Id, X-API-Version, deprecation, ...). */
  readonly responseHeaders: Record<string, string>;
}

/** The idempotency record a call claimed, to be completed with its reply. */
export interface IdempotencyClaim {
  scope: string;
  key: string;
  fingerprint: string;
}

/** A complete answer to a call: what is sent, and what an idempotency record stores and replays. */
export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** What the stages share across calls. */
export interface RuntimeDeps {
  readonly db: Db;
  readonly providers: Providers;
  readonly keys: KeyCache;
  readonly limiter: RateLimiter;
  readonly serverVersion: string;
  readonly idempotencyTtlSeconds: number;
  readonly settings: HandlerSettings;
  /** Commits the writes of calls that wrote nothing themselves (their events) together. */
  readonly commits: CommitGroup;
  /** Counts a call in the metrics, with the time since `startedAt`; batch requests are counted one by one. */
  readonly observe: (call: CallState, status: number, startedAt: number) => void;
}

export type Stage = (call: CallState, deps: RuntimeDeps) => void | Promise<void>;

export function header(call: CallState, name: string): string | undefined {
  const value = call.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
