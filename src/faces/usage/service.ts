/**
 * What the usage module offers (`ctx.service('usage')`, `host.service('usage')`): billing rates metered
 * prices from a partition's usage, read exactly as `usage.summary` reads it, without reaching into the
 * rollups itself. A face that uses it imports this file's types only.
 */
import type { Mode, Db } from '../../store/schema.js';
import type { UsageFeed } from './feed.js';

/** Whose usage, read through which store (a call's transaction, or the billing closer's). */
export interface UsagePartition {
  readonly db: Db;
  readonly mode: Mode;
  readonly entityId: string;
}

export interface UsageTotals {
  /** The calls' cost: a decimal in the platform's currency. */
  readonly cost: string;
  /** Each ingested meter type's summed `value`, an exact decimal. */
  readonly meters: ReadonlyMap<string, string>;
}

export interface UsageService {
  /** The partition's usage over the whole minutes from `from` to `to` (ISO instants). */
  totals(partition: UsagePartition, range: { from: string; to: string }): Promise<UsageTotals>;
  /** How far back a meter event may be dated when it is ingested: a period's usage grows for that long after it ends. */
  readonly meterLateMs: number;
}

/** The module's own view of its service: its handlers also follow the live feed (`usage.live`). */
export interface UsageModuleService extends UsageService {
  readonly feed: UsageFeed;
}
