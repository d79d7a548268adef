/**
 * Ids (store/secrets.ts): `prefix_` then ten characters of millisecond time and sixteen random, Crockford base32;
 * they sort by the time they were made at, whatever prefixes are made in between, and idTime reads it back.
 */
import { describe, expect, it } from 'vitest';
import { idTime, idTimePrefix, newId } from '../../src/store/secrets.js';

const ID = /^[a-z]+_[0-9A-HJKMNP-TV-Z]{26}$/;

describe('newId', () => {
  it('writes the prefix, the time and sixteen random characters', () => {
    const ms = Date.parse('2026-11-30T10:00:00.123Z');
    for (const prefix of ['use', 'req', 'evt']) {
      const id = newId(prefix, ms);
      expect(id).toMatch(ID);
      expect(id.startsWith(idTimePrefix(prefix, ms))).toBe(true);
      expect(idTime(id)).toBe(ms);
    }
  });

  it('gives each id the time it is made at, with other prefixes made in between', () => {
    const start = Date.parse('2026-11-30T10:00:00.000Z');
    const made: { id: string; ms: number }[] = [];
    for (let i = 0; i < 200; i++) {
      // Times go back and forth and prefixes take turns, so that no prefix's time can be left from before.
      const ms = start + ((i * 7919) % 1000);
      const prefix = ['use', 'req', 'evt'][i % 3]!;
      made.push({ id: newId(prefix, ms), ms });
    }
    for (const { id, ms } of made) expect(idTime(id)).toBe(ms);
    const uses = made.filter(({ id }) => id.startsWith('use_'));
    const byId = [...uses].sort((a, b) => (a.id < b.id ? -1 : 1)).map(({ ms }) => ms);
    expect(byId).toEqual(uses.map(({ ms }) => ms).sort((a, b) => a - b));
  });

  it('does not repeat', () => {
    const ids = new Set(Array.from({ length: 20_000 }, () => newId('use', 0)));
    expect(ids.size).toBe(20_000);
  });
});
