/**
 * The notices that announce a flush's packs across processes (src/faces/usage/relay.ts): every pack named once,
 * in order, by its partition and newest id, in as many notices as it takes for each to stay under PostgreSQL's
 * 8000-byte payload limit, with entity ids as long as they may be.
 */
import { describe, expect, it } from 'vitest';
import { packNotices } from '../../src/faces/usage/relay.js';
import { newId } from '../../src/store/secrets.js';

const pack = (entity: string) => ({ mode: 'live' as const, entity_id: entity, last_id: newId('use') });

describe('the notices of a flush', () => {
  it('name every pack once, each notice under 8000 bytes', () => {
    // Entity ids of 64 characters, the most an entity id may have.
    const packs = Array.from({ length: 600 }, (_, i) => pack(String(i).padStart(64, 'e')));
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
