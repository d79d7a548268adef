/**
 * The notices that announce a flush's packs across processes (src/faces/usage/relay.ts): every pack named once,
 * in order, by its partition and newest id, in as many notices as it takes for each to stay under PostgreSQL's
 * 8000-byte payload limit, long entity ids of characters that take several bytes included.
 */
import { describe, expect, it } from 'vitest';
import { packNotices } from '../../src/faces/usage/relay.js';
import { newId } from '../../src/store/secrets.js';

const pack = (entity: string) => ({ mode: 'test' as const, entity_id: entity, last_id: newId('use') });

describe('the notices of a flush', () => {
  it.each([
    ['short entity ids', 'e'],
    ['long entity ids of several bytes a character', 'ünïcödé😀'.repeat(12)],
  ])('name every pack once, each notice under 8000 bytes: %s', (_, entity) => {
    const packs = Array.from({ length: 600 }, (__, i) => pack(`${entity}${i}`));
    const notices = packNotices('proc_x', packs);
    expect(notices.length).toBeGreaterThan(1);
    for (const notice of notices) expect(Buffer.byteLength(notice)).toBeLessThan(8000);
    const named = notices.flatMap((notice) => {
      const { origin, packs: keys } = JSON.parse(notice);
      expect(origin).toBe('proc_x');
      return keys;
    });
    expect(named).toEqual(packs.map((p) => [p.mode, p.entity_id, p.last_id]));
  });

  it('sends none for a flush of no packs', () => {
    expect(packNotices('proc_x', [])).toEqual([]);
  });
});
