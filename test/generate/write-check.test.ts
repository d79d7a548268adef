/**
 * write writes only what changed and deletes what a previous run produced but this one does not; check
 * reports stale (with a diff), missing and extra files.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkGenerated, isCurrent } from '../../src/generate/check.js';
import { MANIFEST_PATH } from '../../src/generate/index.js';
import { writeGenerated } from '../../src/generate/write.js';

const manifest = (files: string[]) => JSON.stringify({ files: [...files, MANIFEST_PATH].sort() });

function files(entries: Record<string, string>): Map<string, string> {
  return new Map([...Object.entries(entries), [MANIFEST_PATH, manifest(Object.keys(entries))]]);
}

describe('writeGenerated', () => {
  it('writes only changed files and deletes orphans listed in the previous manifest', () => {
    const out = mkdtempSync(join(tmpdir(), 'write-'));
    const first = writeGenerated(out, files({ 'a.ts': 'a', 'old/b.ts': 'b' }));
    expect(first.written.sort()).toEqual(['a.ts', 'manifest.json', 'old/b.ts']);
    const before = statSync(join(out, 'a.ts')).mtimeMs;
    writeFileSync(join(out, 'hand-made.txt'), 'not ours');

    const second = writeGenerated(out, files({ 'a.ts': 'a', 'c.ts': 'c' }));
    expect(second.written.sort()).toEqual(['c.ts', 'manifest.json']);
    expect(second.deleted).toEqual(['old/b.ts']);
    expect(second.unchanged).toBe(1);
    expect(statSync(join(out, 'a.ts')).mtimeMs).toBe(before);
    expect(existsSync(join(out, 'old'))).toBe(false);
    // Files the generator never produced are left alone by write (check reports them).
    expect(readFileSync(join(out, 'hand-made.txt'), 'utf8')).toBe('not ours');
  });
});

describe('writeGenerated in a long-running process (a watch)', () => {
  it('rewrites a file edited by hand since it wrote it, and writes a changed file without reading it', () => {
    const out = mkdtempSync(join(tmpdir(), 'write-again-'));
    writeGenerated(out, files({ 'a.ts': 'a', 'b.ts': 'b' }));
    // Same length, other text: only the file's time tells the edit apart.
    writeFileSync(join(out, 'a.ts'), 'x');
    const again = writeGenerated(out, files({ 'a.ts': 'a', 'b.ts': 'b' }));
    expect(again).toEqual({ written: ['a.ts'], deleted: [], unchanged: 2 });
    expect(readFileSync(join(out, 'a.ts'), 'utf8')).toBe('a');
    // A file that had been edited back to the text this run writes is left as it is.
    writeFileSync(join(out, 'b.ts'), 'c');
    writeFileSync(join(out, 'b.ts'), 'b');
    expect(writeGenerated(out, files({ 'a.ts': 'a', 'b.ts': 'b' }))).toEqual({ written: [], deleted: [], unchanged: 3 });
    const changed = writeGenerated(out, files({ 'a.ts': 'a', 'b.ts': 'bb' }));
    expect(changed.written).toEqual(['b.ts']);
    expect(readFileSync(join(out, 'b.ts'), 'utf8')).toBe('bb');
  });

  it('trusts a settled record only while the file keeps its inode, size and times', async () => {
    const out = mkdtempSync(join(tmpdir(), 'write-settled-'));
    const same = () => files({ 'a.ts': 'a', 'b.ts': 'b' });
    writeGenerated(out, same());
    // Past the racy margin, a run records the files as settled: the next trusts them without reading.
    await new Promise((resolve) => setTimeout(resolve, 2100));
    expect(writeGenerated(out, same()).unchanged).toBe(3);
    // A same-size edit changes the file's times.
    writeFileSync(join(out, 'a.ts'), 'x');
    // One whose modification time is put back (touch -r) still changes its ctime.
    const { atime, mtime } = statSync(join(out, 'b.ts'));
    writeFileSync(join(out, 'b.ts'), 'y');
    utimesSync(join(out, 'b.ts'), atime, mtime);
    expect(writeGenerated(out, same()).written).toEqual(['a.ts', 'b.ts']);
    expect([readFileSync(join(out, 'a.ts'), 'utf8'), readFileSync(join(out, 'b.ts'), 'utf8')]).toEqual(['a', 'b']);
  });
});

describe('checkGenerated', () => {
  it('reports stale, missing and extra files', () => {
    const out = mkdtempSync(join(tmpdir(), 'check-'));
    const expected = files({ 'a.ts': 'line 1\nline 2\n', 'b.ts': 'b' });
    writeGenerated(out, expected);
    expect(isCurrent(checkGenerated(out, expected))).toBe(true);

    writeFileSync(join(out, 'a.ts'), 'line 1\nedited by hand\n');
    mkdirSync(join(out, 'x'));
    writeFileSync(join(out, 'x/extra.ts'), '');
    const changed = new Map(expected).set('new.ts', 'n');
    const report = checkGenerated(out, changed);
    expect(report.stale.map((s) => s.path)).toEqual(['a.ts']);
    expect(report.stale[0]!.diff).toContain('-edited by hand');
    expect(report.stale[0]!.diff).toContain('+line 2');
    expect(report.missing).toEqual(['new.ts']);
    expect(report.extra).toEqual(['x/extra.ts']);
    expect(isCurrent(report)).toBe(false);
  });
});
