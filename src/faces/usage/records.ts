/**
 * A stored usage record in the wire shape of docs/contract.md § Usage (`usage.events`, `usage.live`): camelCase fields,
 * `units` as an object, `replayed` as a boolean, and the optional fields only when they have a value.
 */
import type { UsageRecord } from '../../../generated/server/types.js';
import type { UsageRecordTable } from '../../store/schema.js';

export function toRecord(row: UsageRecordTable): UsageRecord {
  return {
    id: row.id,
    requestId: row.request_id,
    at: row.at,
    keyId: row.key_id,
    mode: row.mode,
    entityId: row.entity_id,
    face: row.face,
    action: row.action,
    ...(row.api_version !== null ? { apiVersion: row.api_version } : {}),
    status: Number(row.status),
    ...(row.error_code !== null ? { errorCode: row.error_code } : {}),
    latencyMs: Number(row.latency_ms),
    units: JSON.parse(row.units) as Record<string, number>,
    cost: row.cost,
    currency: row.currency,
    replayed: Number(row.replayed) === 1,
  };
}
