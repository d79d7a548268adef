/**
 * What a handler receives besides its payload. Handlers are typed against this through the generated
 * handler interfaces (`generated/server/types.ts`).
 */
import type { Providers } from '../providers/index.js';
import type { KeyRecord } from '../store/keys.js';
import type { Db, Mode } from '../store/schema.js';

export interface HandlerContext {
  readonly requestId: string;
  /** Test keys see only test data and use sandbox backends; live keys only live data. */
  readonly mode: Mode;
  /** Every record a handler reads or writes is partitioned by (mode, entityId). */
  readonly entityId: string;
  /** The key that made the call. */
  readonly key: KeyRecord;
  /** The resolved API version (`YYYY-MM-DD`). */
  readonly apiVersion: string;
  /** Fires when the time-out expires; pass it to every I/O call. */
  readonly signal: AbortSignal;
  readonly db: Db;
  readonly providers: Providers;
}
