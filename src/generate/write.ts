/**
 * Writes generated files: only those whose text changed, and deletes the files an earlier run produced
 * (listed in its manifest) that this run no longer produces.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { MANIFEST_PATH } from './manifest.js';

export interface WriteReport {
  written: string[];
  deleted: string[];
  unchanged: number;
}

/**
 * What this process last wrote or found at each file, and the file's size and modification time then: a
 * watch run does not read a file again whose text it would write unchanged, unless something touched it since.
 */
const known = new Map<string, { text: string; size: number; mtimeMs: number; recordedAt: number }>();

/**
 * How close to its recording a file's modification time makes the record untrusted: file times are coarse
 * (a clock tick), so an edit made just after the record can leave the same time behind, as git's "racily
 * clean" entries.
 */
const RACY_MS = 50;

export function writeGenerated(outDir: string, files: Map<string, string>): WriteReport {
  const report: WriteReport = { written: [], deleted: [], unchanged: 0 };
  const previous = readManifest(outDir);
  for (const [path, text] of files) {
    const target = join(outDir, path);
    if (isOnDisk(target, text)) {
      report.unchanged++;
      continue;
    }
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text);
    remember(target, text);
    report.written.push(path);
  }
  for (const path of previous) {
    if (files.has(path) || !existsSync(join(outDir, path))) continue;
    unlinkSync(join(outDir, path));
    report.deleted.push(path);
    removeEmptyParents(outDir, dirname(path));
  }
  return report;
}

/** Whether `target` holds `text`. */
function isOnDisk(target: string, text: string): boolean {
  const stats = statSync(target, { throwIfNoEntry: false });
  if (!stats) return false;
  const seen = known.get(target);
  if (seen && seen.size === stats.size && seen.mtimeMs === stats.mtimeMs) {
    // Untouched since this process wrote or read it: it holds what it held then. Writing again a file that
    // already holds the new text costs a write; calling a file current that does not, a wrong output.
    if (seen.text !== text) return false;
    if (seen.mtimeMs < seen.recordedAt - RACY_MS) return true;
  }
  if (readFileSync(target, 'utf8') !== text) return false;
  known.set(target, { text, size: stats.size, mtimeMs: stats.mtimeMs, recordedAt: Date.now() });
  return true;
}

function remember(target: string, text: string): void {
  const { size, mtimeMs } = statSync(target);
  known.set(target, { text, size, mtimeMs, recordedAt: Date.now() });
}

function readManifest(outDir: string): string[] {
  try {
    return (JSON.parse(readFileSync(join(outDir, MANIFEST_PATH), 'utf8')) as { files: string[] }).files;
  } catch {
    return [];
  }
}

function removeEmptyParents(outDir: string, dir: string): void {
  for (let d = dir; d !== '.' && d !== ''; d = dirname(d)) {
    const full = join(outDir, d);
    if (!existsSync(full) || readdirSync(full).length > 0) return;
    rmdirSync(full);
  }
}
