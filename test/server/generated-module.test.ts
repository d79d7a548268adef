/**
 * A face's validators are imported on its first call, once however many calls wait for them, and again
 * after a failed import; a validator asked for before its module is loaded is a fault of the server.
 */
import type { ValidateFunction } from 'ajv';
import { describe, expect, it } from 'vitest';
import { loadAll, generatedModule, validatorOf, GeneratedModule } from '../../src/server/generated-module.js';

const accept = (() => true) as unknown as ValidateFunction;

describe('GeneratedModule', () => {
  it('imports once for concurrent and later loads, then loads synchronously', async () => {
    let imports = 0;
    const module = new GeneratedModule(async () => {
      imports++;
      return { face_action_2026_01_01: accept };
    });
    expect(() => module.get('face_action_2026_01_01')).toThrow(/not loaded/);
    await Promise.all([module.load(), module.load()]);
    expect(imports).toBe(1);
    expect(module.load()).toBeUndefined();
    expect(module.get('face_action_2026_01_01')).toBe(accept);
    expect(() => module.get('face_other_2026_01_01')).toThrow(/face_other_2026_01_01/);
  });

  it('keeps one module per generated import function, shared by every reference to it', async () => {
    let imports = 0;
    const loader = async () => {
      imports++;
      return { a: accept, b: accept };
    };
    expect(generatedModule(loader)).toBe(generatedModule(loader));
    await Promise.all([loadAll([loader, loader]), loadAll([loader])]);
    expect(imports).toBe(1);
    expect(loadAll([loader])).toBeUndefined();
    expect(validatorOf({ module: loader, name: 'b' })).toBe(accept);
  });

  it('tries a failed import again on the next load', async () => {
    let attempts = 0;
    const module = new GeneratedModule(async () => {
      if (++attempts === 1) throw new Error('disk hiccup');
      return { v: accept };
    });
    await expect(module.load()).rejects.toThrow('disk hiccup');
    await module.load();
    expect(attempts).toBe(2);
    expect(module.get('v')).toBe(accept);
  });
});
