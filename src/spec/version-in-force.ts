/**
 * Which API version is in force: a version takes effect on its date (docs/calling.md § Versions).
 * The default of a call that names no version and whose key pins none is the newest stable version whose
 * date has come, by the server's clock in UTC; a version dated later is announced, served only to whoever
 * names it, and becomes the default on its date without a redeploy. The same version dates the events the
 * background workers write, and the version `dispatch new` first serves a new face in.
 */
import type { ApiVersion } from './model.js';

/** What the rule reads of a platform: its versions, sorted by date, and the newest stable one. */
type Versions = { readonly versions: readonly ApiVersion[]; readonly latest: string };

const DAY_MS = 86_400_000;

/**
 * The version in force on `day` (`YYYY-MM-DD`): the newest stable version dated on or before it, else the
 * newest deprecated one that has come; before any has come, the first stable version, the first to take effect.
 */
export function versionInForce(platform: Versions, day: string): string {
  const served = platform.versions.filter((v) => v.status !== 'retired');
  const come = served.filter((v) => v.date <= day);
  const newest = [...come].reverse();
  return (newest.find((v) => v.status === 'stable') ?? newest[0] ?? served.find((v) => v.status === 'stable'))?.date ?? platform.latest;
}

/**
 * The version in force now, read through `now` (`Date.now` unless a test sets the clock); worked out once per
 * UTC day, so that a call pays one clock reading and two comparisons.
 */
export function versionInForceNow(platform: Versions, now: () => number = Date.now): () => string {
  let from = 0;
  let until = 0;
  let version = '';
  return () => {
    const t = now();
    // A clock set back (as tests do) is a day like any other.
    if (t < from || t >= until) {
      from = Math.floor(t / DAY_MS) * DAY_MS;
      until = from + DAY_MS;
      version = versionInForce(platform, new Date(from).toISOString().slice(0, 10));
    }
    return version;
  };
}
