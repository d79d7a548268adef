/**
 * The generator's memo changes nothing but speed: a run with an empty memo, one that finds every entry
 * (read back from disk) and one without a memo print the same bytes and the same diagnostics. The
 * fingerprint that keys it covers every module the output depends on, outside src/generate too.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { generate } from '../../src/generate/index.js';
import { generatorFingerprint, generatorModules } from '../../src/memo/fingerprint.js';
import { closeCache, memoStats, openCache, saveCache } from '../../src/memo/memo.js';
import { fromRoot } from '../../src/package-root.js';
import { buildCatalog } from '../../src/spec/index.js';

const FACES = fromRoot('faces');

async function run() {
  const { catalog, diagnostics } = buildCatalog(FACES, { handlersDir: fromRoot('src', 'faces') });
  return { files: await generate(catalog!), diagnostics };
}

afterEach(() => closeCache());

describe('the generator memo', () => {
  it('prints the same files and diagnostics cold, warm from disk, and without a memo', async () => {
    const without = await run();
    const dir = mkdtempSync(join(tmpdir(), 'dispatch-memo-'));
    openCache(generatorFingerprint(), dir);
    const cold = await run();
    expect(memoStats().hits).toBe(0);
    saveCache();
    closeCache();

    openCache(generatorFingerprint(), dir);
    const warm = await run();
    const { hits, misses } = memoStats();
    expect(misses).toBe(0);
    expect(hits).toBeGreaterThan(50);

    for (const result of [cold, warm]) {
      expect([...result.files]).toEqual([...without.files]);
      expect(result.diagnostics).toEqual(without.diagnostics);
    }
  }, 120_000);

  it('misses every entry under another fingerprint', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dispatch-memo-'));
    openCache('one', dir);
    await run();
    saveCache();
    closeCache();
    openCache('another', dir);
    await run();
    expect(memoStats().hits).toBe(0);
  }, 120_000);

  it('is keyed by every module the output depends on, wherever it lives', () => {
    const modules = generatorModules().map((file) => file.slice(fromRoot().length + 1));
    for (const file of ['src/spec/lint.ts', 'src/generate/emit-docs.ts', 'src/generate/templates.ts', 'src/generate/format.worker.mjs', 'src/diff/change.ts', 'src/spec/webhook-delivery.ts', 'src/core/dispatch-types.ts']) {
      expect(modules).toContain(file);
    }
    // The runtime's own modules do not decide the output: editing them must not cost a full check.
    expect(modules).not.toContain('src/server/server.ts');
  });
});
