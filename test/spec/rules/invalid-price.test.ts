/**
 * Rule `invalid-price`: prices are plain decimals, not negative, of at most 9 places, written as a YAML number
 * or a decimal string, and reported at the price itself; the model keeps each price's text as written.
 */
import { describe, expect, it } from 'vitest';
import { build, faceWithCost, found } from './demo.js';

describe('invalid-price', () => {
  const cases: [name: string, cost: string, expected: string[]][] = [
    ['a number', '{ perCall: 0.0005 }', []],
    ['a decimal string', '{ perCall: "0.0005", perUnit: { inputTokens: "0.000000001" } }', []],
    ['an integer', '{ perCall: 2 }', []],
    ['trailing zeros past the 9th place', '{ perCall: 0.0000000010 }', []],
    ['negative', '{ perCall: -0.5 }', ['8:22 invalid-price']],
    ['finer than a nano-unit', '{ perCall: 0.0000000001 }', ['8:22 invalid-price']],
    ['finer, as a string', '{ perUnit: { inputTokens: "0.0000000005" } }', ['8:37 invalid-price']],
    ['an exponent', '{ perCall: 1e-7 }', ['8:22 invalid-price']],
    ['no leading digit', '{ perCall: .5 }', ['8:22 invalid-price']],
    ['a string that is not a number', '{ perCall: "cheap" }', ['8:22 invalid-price']],
    ['every bad price at once', '\n      perCall: -1\n      perUnit:\n        inputTokens: "1,5"\n        outputTokens: 0.5', ['9:16 invalid-price', '11:22 invalid-price']],
    ['neither number nor string', '{ perCall: true }', ['8:22 schema-violation']],
  ];

  it.each(cases)('%s', (_name, cost, expected) => {
    expect(found(build(faceWithCost(cost)))).toEqual(expected);
  });

  it.each([
    ['-0.5', 'Price "-0.5" is negative.'],
    ['1e-7', 'Price "1e-7" is not a plain decimal (write it as e.g. 0.0005 or "0.0005").'],
    ['0.0000000001', 'Price "0.0000000001" is finer than 10⁻⁹ of the currency (more than 9 decimal places).'],
  ])('explains %s', (price, message) => {
    expect(build(faceWithCost(`{ perCall: ${price} }`)).diagnostics.map((d) => d.message)).toEqual([message]);
  });

  it('keeps prices as written: the text of a YAML number, never String(float)', () => {
    const { catalog } = build(faceWithCost('{ perCall: 0.10, perUnit: { outputTokens: 0.0000005, inputTokens: "0.000002" } }'));
    // String(0.0000005) is "5e-7" and String(0.10) is "0.1".
    expect(catalog?.faces[0]?.actions[0]?.cost).toEqual({ perCall: '0.10', perUnit: { inputTokens: '0.000002', outputTokens: '0.0000005' } });
    expect(Object.keys(catalog!.faces[0]!.actions[0]!.cost.perUnit)).toEqual(['inputTokens', 'outputTokens']);
  });

  it('keeps the text of a price shared through a YAML alias', () => {
    const face = faceWithCost('&price { perCall: 0.0000005 }') + '  again:\n    summary: Again.\n    scope: demo:read\n    cost: *price\n    payload: { type: object }\n    result: { type: object }\n    examples: [{ payload: {}, result: {} }]\n    effect: read\n    external: false\n';
    const { catalog, diagnostics } = build(face);
    expect(diagnostics).toEqual([]);
    expect(catalog?.faces[0]?.actions.map((a) => a.cost.perCall)).toEqual(['0.0000005', '0.0000005']);
  });

  it('prices an action without cost at "0"', () => {
    const { catalog } = build(faceWithCost('{}'));
    expect(catalog?.faces[0]?.actions[0]?.cost).toEqual({ perCall: '0', perUnit: {} });
  });
});
