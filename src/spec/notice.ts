/**
 * The notice a breaking change needs: the version that makes it must be announced at least 90 days before
 * its date (docs/contract.md § Versions). Lint checks it for `until`/`since` annotations, `dispatch diff` for every change.
 */
import type { ApiVersion } from './model.js';

export const NOTICE_DAYS = 90;

const DAY_MS = 86_400_000;

/** Whole days from a version's announcement to its date; undefined when platform.yaml gives no announcement. */
export function noticeDays(version: ApiVersion): number | undefined {
  if (!version.announced) return undefined;
  return Math.floor((Date.parse(version.date) - Date.parse(version.announced)) / DAY_MS);
}
