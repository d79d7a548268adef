/**
 * Writes generated files: only those whose text changed, and deletes the files an earlier run produced
 * (listed in its manifest) that this run no longer produces.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { MANIFEST_PATH } from './manifest.js';

export interface WriteReport {
  written: string[];
  deleted: string[];
  unchanged: number;
}

export function writeGenerated(outDir: string, files: Map<string, string>): WriteReport {
  const report: WriteReport = { written: [], deleted: [], unchanged: 0 };
  const previous = readManifest(outDir);
  for (const [path, text] of files) {
    const target = join(outDir, path);
    if (existsSync(target) && readFileSync(target, 'utf8') === text) {
      report.unchanged++;
      continue;
    }
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text);
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
