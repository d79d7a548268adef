/**
 * Compares generated files with what is on disk: stale (with a unified diff), missing, and extra files
 * (anything under the output directory that the generator does not produce).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createTwoFilesPatch } from 'diff';

export interface CheckReport {
  stale: { path: string; diff: string }[];
  missing: string[];
  extra: string[];
}

export function checkGenerated(outDir: string, files: Map<string, string>): CheckReport {
  const report: CheckReport = { stale: [], missing: [], extra: [] };
  for (const [path, expected] of files) {
    const target = join(outDir, path);
    if (!existsSync(target)) {
      report.missing.push(path);
      continue;
    }
    const actual = readFileSync(target, 'utf8');
    if (actual !== expected) report.stale.push({ path, diff: createTwoFilesPatch(`a/${path}`, `b/${path}`, actual, expected) });
  }
  report.extra = listFiles(outDir).filter((path) => !files.has(path));
  return report;
}

export const isCurrent = (r: CheckReport) => r.stale.length + r.missing.length + r.extra.length === 0;

/**
 * What Python's tools leave beside the generated package: bytecode, the caches of mypy and pytest, and what pip's
 * build of `python/` writes into it (`build/`, `*.egg-info/`). None of it is output, so none of it is extra.
 */
const TOOL_LEFTOVERS = /(^|\/)(__pycache__|\.mypy_cache|\.pytest_cache)\/|^python\/(build|[^/]+\.egg-info)\//;

export function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .filter((path) => !TOOL_LEFTOVERS.test(path))
    .sort();
}
