/**
 * A usage record as the usage stage writes it, for tests that feed the recorder directly: a successful
 * `ai.generate` of key `key_x` for entity `acme` now, with whatever `fields` say instead.
 */
import type { UsageRecordTable } from '../../src/store/schema.js';
import { newId } from '../../src/store/secrets.js';

export function usageRecord(fields: Partial<UsageRecordTable> = {}): UsageRecordTable {
  return {
    id: newId('use'),
    request_id: newId('req'),
    at: new Date().toISOString(),
    key_id: 'key_x',
    mode: 'test',
    entity_id: 'acme',
    face: 'ai',
    action: 'generate',
    api_version: '2026-09-01',
    status: 200,
    error_code: null,
    latency_ms: 1.5,
    units: '{}',
    cost: '0.0005',
    currency: 'usd',
    replayed: 0,
    ...fields,
  };
}
