/**
 * Rule `unknown-unit`: a `cost.perUnit` key that platform.yaml does not declare under `units` is reported at
 * the key, naming the declared units; declared names must be camelCase.
 */
import { describe, expect, it } from 'vitest';
import { build, faceWithCost, found, PLATFORM } from './demo.js';

describe('unknown-unit', () => {
  const cases: [name: string, cost: string, expected: string[]][] = [
    ['declared units', '{ perCall: 0.0005, perUnit: { inputTokens: 0.0000005, outputTokens: 0.000002 } }', []],
    ['no per-unit price', '{ perCall: 0.0005 }', []],
    ['a misspelt unit', '{ perCall: 0.0005, perUnit: { outputToken: 0.000002 } }', ['8:41 unknown-unit']],
    ['every unknown unit at once', '{ perUnit: { tokens: 1, inputTokens: 1, bytes: 2 } }', ['8:24 unknown-unit', '8:51 unknown-unit']],
    ['in block style', '\n      perUnit:\n        inputTokens: 1\n        seconds: 1', ['11:9 unknown-unit']],
  ];

  it.each(cases)('%s', (_name, cost, expected) => {
    expect(found(build(faceWithCost(cost)))).toEqual(expected);
  });

  it('names the unit and the declared ones', () => {
    const [d] = build(faceWithCost('{ perUnit: { outputToken: 1 } }')).diagnostics;
    expect(d?.message).toBe('Unit "outputToken" is not declared under "units" in platform.yaml (declared: inputTokens, outputTokens).');
  });

  it('says so when platform.yaml declares no units', () => {
    const platform = PLATFORM.replace(/^units:\n(  .*\n)+/, '');
    const [d] = build(faceWithCost('{ perUnit: { inputTokens: 1 } }'), platform).diagnostics;
    expect(d?.message).toMatch(/\(declared: none\)\.$/);
  });

  it('requires camelCase unit names in platform.yaml', () => {
    const result = build(faceWithCost('{ perCall: 0 }'), PLATFORM.replace('outputTokens: Tokens out.', 'output_tokens: Tokens out.'));
    expect(found(result)).toEqual(['3:3 schema-violation']);
  });

  it('resolves the declared units into the platform, sorted', () => {
    const { catalog } = build(faceWithCost('{ perCall: 0 }'), PLATFORM.replace('units:\n', 'units:\n  bytes: Bytes.\n'));
    expect(catalog?.platform.units).toEqual([
      { name: 'bytes', description: 'Bytes.' },
      { name: 'inputTokens', description: 'Tokens in.' },
      { name: 'outputTokens', description: 'Tokens out.' },
    ]);
  });
});
