/**
 * Writes generated files: only those whose text changed, and deletes the files an earlier run produced
 * (listed in its manifest) that this run no longer produces.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, statSync, unlinkSync, writeFileSync, type Stats } from 'node:fs';
import { dirname, join } from 'node:path';
import { MANIFEST_PATH } from './manifest.js';

export interface WriteReport {
  written: string[];
  deleted: string[];
  unchanged: number;
}

/**
 * What this process last wrote or found at each file, with the file's identity, size and times then: a watch
 * run does not read a file again whose text it would write unchanged, unless something touched it since.
 */
const known = new Map<string, { text: string; stamp: string; changedMs: number; recordedAt: number }>();

/**
 * How close to its recording a file's last change makes the record untrusted. File times are coarse (a clock
 * tick; a second or two on some filesystems), so an edit made just after the record can leave the same times
 * behind; such a file is read again until its times are older than this, as git does with "racily clean"
 * entries.
 */
const RACY_MS = 2000;

const stampOf = (stats: Stats) => `${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;

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
    record(target, text);
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
  if (seen?.stamp === stampOf(stats)) {
    // Untouched since this process wrote or read it: it holds what it held then. Writing again a file that
    // already holds the new text costs a write; calling a file current that does not, a wrong output.
    if (seen.text !== text) return false;
    if (seen.changedMs < seen.recordedAt - RACY_MS) return true;
  }
  if (readFileSync(target, 'utf8') !== text) return false;
  record(target, text, stats);
  return true;
}

function record(target: string, text: string, stats = statSync(target)): void {
  known.set(target, { text, stamp: stampOf(stats), changedMs: Math.max(stats.mtimeMs, stats.ctimeMs), recordedAt: Date.now() });
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
