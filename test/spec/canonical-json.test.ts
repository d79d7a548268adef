/**
 * canonicalJson: the text stores keep as idempotency fingerprints, so it must stay what the first version
 * wrote (JSON.stringify with a replacer that rebuilt every object with its keys sorted), for every JSON value
 * and for the odd values JavaScript adds (undefined, functions, dates, index-like keys).
 */
import { describe, expect, it } from 'vitest';
import { canonicalJson, isObject } from '../../src/spec/json-schema.js';

/** The first version, kept as the reference. */
const reference = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) => (isObject(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]])) : v));

/** A small seeded generator, so a failure names a value that can be made again. */
function randomValues(seed: number, count: number): unknown[] {
  let state = seed;
  const next = () => ((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648);
  const keys = ['a', 'b', 'B', 'é', 'z', '10', '2', '0', '01', '-1', '4294967295', '4294967294', '', ' ', '__proto__', 'toJSON', '\u2028', '😀'];
  const value = (depth: number): unknown => {
    const kind = Math.floor(next() * (depth > 3 ? 5 : 7));
    if (kind === 0) return null;
    if (kind === 1) return next() < 0.5;
    if (kind === 2) return [0, -0, 1.5, 1e21, -3, 2 ** 53, 0.1][Math.floor(next() * 7)];
    if (kind === 3) return ['', 'x', 'line\nbreak', 'quote"', '\u0000', '😀', '\ud800'][Math.floor(next() * 7)];
    if (kind === 4) return undefined;
    if (kind === 5) return Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1));
    const object: Record<string, unknown> = {};
    for (let i = Math.floor(next() * 6); i > 0; i--) object[keys[Math.floor(next() * keys.length)]!] = value(depth + 1);
    return object;
  };
  return Array.from({ length: count }, () => value(0));
}

describe('canonicalJson', () => {
  it('writes what the first version wrote for the values JSON has, index-like keys and odd strings included', () => {
    const values = [
      {},
      [],
      { b: 1, a: [3, { d: 1, c: 2 }], '10': 'ten', '2': 'two', '01': 'padded', '-1': 'negative' },
      { '4294967294': 'last index', '4294967295': 'not an index', z: null },
      JSON.parse('{"__proto__": {"x": 1}, "a": 2}'),
      { face: 'ai', action: 'generate', version: '2026-11-01', payload: { prompt: 'Classify this.', input: 'I love it.', model: 'bench' } },
      ...randomValues(7, 2000),
    ];
    for (const value of values) expect(canonicalJson(value)).toBe(reference(value));
  });

  it('leaves out what JSON.stringify leaves out, and calls toJSON as it does', () => {
    const values = [
      { a: undefined, b: () => 1, c: Symbol('s'), d: 1 },
      [undefined, () => 1, Symbol('s')],
      { at: new Date(Date.UTC(2026, 10, 29, 12, 0, 0, 5)), nested: [new Date(0)] },
      { custom: { toJSON: (key: string) => ({ key, z: 1, a: 2 }) } },
      'text',
      42,
      null,
    ];
    for (const value of values) expect(canonicalJson(value)).toBe(reference(value));
    expect(canonicalJson(undefined)).toBe(reference(undefined));
  });
});
