/**
 * A watch's run after an edit prints the same bytes as a cold run over the edited faces: what a watch keeps
 * between its runs (the memo, and in memory the printed chunks of the faces that did not change) never shows in
 * its output. The edits reach a face's own chunks, a catalogue-wide input they are printed from (the latest
 * version), and go back to where they started.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { generate } from '../../src/generate/index.js';
import { generatorFingerprint } from '../../src/memo/fingerprint.js';
import { closeCache, openCache } from '../../src/memo/memo.js';
import { fromRoot } from '../../src/package-root.js';
import { readFaceDirectory } from '../../src/spec/face-directory.js';
import { buildCatalog } from '../../src/spec/index.js';

const FACES = fromRoot('faces');
const SHIPPED = readFaceDirectory(FACES);

/** The shipped faces with `from` replaced by `to` in the file `name`. */
function edited(files: Map<string, string>, name: string, from: string, to: string): Map<string, string> {
  const text = files.get(name)!;
  expect(text).toContain(from);
  return new Map(files).set(name, text.replace(from, to));
}

async function generated(files: Map<string, string>): Promise<Map<string, string>> {
  const { catalog, diagnostics } = buildCatalog(FACES, { files });
  expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return generate(catalog!);
}

afterEach(() => closeCache());

describe('a watch run after an edit', () => {
  it('prints what a cold run prints', async () => {
    const summary = edited(SHIPPED, 'ai.yaml', 'summary: Generate text from a prompt.', 'summary: Generate text, at once.');
    const field = edited(summary, 'keys.yaml', '    payload:\n', '    payload:\n      description: What the key is made with.\n');
    const event = edited(field, 'payments.yaml', 'payments.intent.succeeded:\n    summary: ', 'payments.intent.succeeded:\n    summary: At last, ');
    const version = edited(event, 'platform.yaml', 'versions:\n', 'versions:\n  - date: 2027-09-01\n    status: stable\n    announced: 2027-03-01\n    summary: A later version.\n');
    const runs = [SHIPPED, summary, field, event, version, event, SHIPPED];
    // Cold: each catalogue generated with no memo, so nothing kept from another run.
    const cold: Map<string, string>[] = [];
    for (const files of runs) cold.push(await generated(files));

    // The watch: the memo opened before each run, as runOnce does, in one process.
    const dir = mkdtempSync(join(tmpdir(), 'dispatch-watch-rebuild-'));
    for (const [i, files] of runs.entries()) {
      openCache(generatorFingerprint(), dir);
      const watched = await generated(files);
      expect([...watched.keys()]).toEqual([...cold[i]!.keys()]);
      for (const [path, text] of watched) expect(text, `${path} after edit ${i}`).toBe(cold[i]!.get(path));
    }
    // Each edit changed what it was meant to.
    for (let i = 1; i < runs.length; i++) expect(cold[i]).not.toEqual(cold[i - 1]);
  }, 120_000);
});
