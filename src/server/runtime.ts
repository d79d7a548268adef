/**
 * What the stages of every call share: the catalogue being served, the stores, the limiter, the providers
 * handlers call, and the after-answer work. One per server, made by `buildServer`.
 */
import type { Providers } from '../providers/index.js';
import type { CommitGroup } from '../store/commit-group.js';
import type { Db } from '../store/schema.js';
import type { AfterAnswer } from '../core/answer.js';
import type { HandlerSettings } from '../core/context.js';
import type { Catalogue } from '../core/catalogue.js';
import type { HandlerTable } from './handler-table.js';
import type { KeyCache } from './key-cache.js';
import type { RateLimiter } from './rate-limit/limiter.js';

export interface Runtime {
  readonly catalogue: Catalogue;
  /** The handlers of the catalogue's modules, by action id. */
  readonly handlers: HandlerTable;
  readonly db: Db;
  readonly providers: Providers;
  /** The services the running modules offer, by face. */
  service<T>(face: string): T | undefined;
  readonly keys: KeyCache;
  readonly limiter: RateLimiter;
  /** The version of a call that names none and whose key pins none: the one in force today (spec/version-in-force.ts). */
  readonly defaultVersion: () => string;
  /** `meta.version` of every answer. */
  readonly serverVersion: string;
  /** How long an idempotency key and its stored reply are kept. */
  readonly idempotencyTtlSeconds: number;
  /** How long past its call's deadline a running idempotency claim holds before another may take it. */
  readonly idempotencyLeaseMarginMs: number;
  readonly settings: HandlerSettings;
  /** Commits the writes of calls that wrote nothing themselves (their events) together. */
  readonly commits: CommitGroup;
  /** Run in order once each call's (and each batch request's) answer is decided. */
  readonly afterAnswer: readonly AfterAnswer[];
}
