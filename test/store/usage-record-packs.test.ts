/**
 * Usage records packed (src/store/usage-record-packs.ts): a pack gives back every value of its records as they
 * were; records are packed by partition and span of time, so that a pack's ids lie within one span, and the end
 * of an id's span bounds every pack that may hold records below it.
 */
import { describe, expect, it } from 'vitest';
import type { UsageRecordTable } from '../../src/store/schema.js';
import { idTime, newId } from '../../src/store/secrets.js';
import { packsOf, spanEnd, unpack } from '../../src/store/usage-record-packs.js';
import { usageRecord } from '../helpers/usage-record.js';

const SPAN_MS = 2 ** 15;
const START = Date.parse('2026-11-30T10:00:00.000Z');
const at = (ms: number, fields: Partial<UsageRecordTable> = {}) => usageRecord({ id: newId('use', ms), at: new Date(ms).toISOString(), ...fields });

describe('usage record packs', () => {
  it('give back every value of their records as they were', () => {
    const rows = [
      at(START, { api_version: null, error_code: 'quota "exceeded"\n', status: 429, latency_ms: 0.1 + 0.2, units: '{"a\\\\b":1e-7}', replayed: 1 }),
      at(START + 1, { entity_id: 'ünï 😀', key_id: "it's", cost: '0.000000001', currency: 'eur' }),
      at(START + 2, { mode: 'live', latency_ms: 12 }),
    ];
    const packs = packsOf(rows);
    expect(packs).toHaveLength(3);
    expect(packs.flatMap(unpack)).toEqual(rows);
  });

  it('hold one partition and one span of time each, their first and last ids the least and greatest', () => {
    const rows = Array.from({ length: 400 }, (_, i) => at(START + i * 500, { entity_id: i % 2 ? 'a' : 'b' }));
    const packs = packsOf([...rows].reverse());
    const spans = new Set(rows.map((r) => `${r.entity_id} ${Math.floor(idTime(r.id) / SPAN_MS)}`));
    expect(packs).toHaveLength(spans.size);
    for (const pack of packs) {
      const ids = unpack(pack).map((r) => r.id);
      expect(unpack(pack).every((r) => r.entity_id === pack.entity_id)).toBe(true);
      expect([pack.first_id, pack.last_id]).toEqual([[...ids].sort()[0], [...ids].sort().at(-1)]);
      expect(Math.floor(idTime(pack.first_id) / SPAN_MS)).toBe(Math.floor(idTime(pack.last_id) / SPAN_MS));
    }
    expect(packs.flatMap(unpack).map((r) => r.id).sort()).toEqual(rows.map((r) => r.id).sort());
  });

  it('bound the packs below an id by the end of its span', () => {
    for (let ms = START; ms < START + 3 * SPAN_MS; ms += 997) {
      const id = newId('use', ms);
      const end = spanEnd(id)!;
      const spanStart = Math.floor(ms / SPAN_MS) * SPAN_MS;
      // Every id of the span sorts before its end; the first id of the next span does not.
      expect(newId('use', spanStart + SPAN_MS - 1) < end).toBe(true);
      expect(newId('use', spanStart + SPAN_MS) >= end).toBe(true);
      expect(idTime(id)).toBe(ms);
    }
    // Text that is no id (the cursor's pattern lets some through) bounds nothing.
    expect(spanEnd('use_abc')).toBeUndefined();
    expect(spanEnd('use_00000000zzAB')).toBeUndefined();
  });
});
