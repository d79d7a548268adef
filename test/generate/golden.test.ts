/**
 * Golden output: each catalogue under test/fixtures/<name>/faces generates exactly the files under
 * test/fixtures/<name>/expected, byte for byte; a missing and a leftover file both fail.
 * `RECORD=1 npx vitest run test/generate` rewrites the expected files.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listFiles } from '../../src/generate/check.js';
import { generate } from '../../src/generate/index.js';
import { writeGenerated } from '../../src/generate/write.js';
import { buildCatalog } from '../../src/spec/index.js';

const FIXTURES = new URL('../fixtures/', import.meta.url).pathname;
// The large catalogue keeps no golden files: large-catalogue.test.ts checks what it generates.
const names = readdirSync(FIXTURES).filter((n) => n !== 'large' && readdirSync(join(FIXTURES, n)).includes('faces'));

describe.each(names)('fixture %s', (name) => {
  const facesDir = join(FIXTURES, name, 'faces');
  const expectedDir = join(FIXTURES, name, 'expected');

  it('generates the golden files', async () => {
    const { catalog, diagnostics } = buildCatalog(facesDir);
    expect(diagnostics).toEqual([]);
    const files = await generate(catalog!);
    if (process.env.RECORD === '1') {
      rmSync(expectedDir, { recursive: true, force: true });
      writeGenerated(expectedDir, files);
    }
    expect(listFiles(expectedDir)).toEqual([...files.keys()].sort());
    for (const [path, text] of files) expect(text, path).toBe(readFileSync(join(expectedDir, path), 'utf8'));
  });

  it('generates the same bytes twice', async () => {
    const first = await generate(buildCatalog(facesDir).catalog!);
    const second = await generate(buildCatalog(facesDir).catalog!);
    expect([...second]).toEqual([...first]);
  });
});
