/**
 * The gating rule of docs/contract.md § Versions between a base catalogue and the working one. A version both serve must look
 * the same to its clients, but for additions. A version only the working catalogue has may break what the
 * version before it did (that is what versions are for) if it was announced at least 90 days before its
 * date. Each finding says which versions it is seen at, whether it is gated, and whether it is an error.
 */
import { PLATFORM_FILE } from '../spec/load.js';
import type { Catalog } from '../spec/model.js';
import { NOTICE_DAYS, noticeDays } from '../spec/notice.js';
import type { Change } from './change.js';
import { classifyViews } from './classify.js';
import { catalogView, emptyView } from './views.js';

export interface Finding {
  change: Change;
  /** The versions whose clients see the change, oldest first. */
  versions: string[];
  /** Made by a version the base does not serve, against the version before it. */
  gated: boolean;
  /** For a gated change: when its version was announced, and how many days before its date. */
  notice?: { announced?: string; days?: number };
  /** A breaking change that is not allowed: not gated, or gated behind a version announced too late. */
  error: boolean;
}

export function compareCatalogs(base: Catalog, head: Catalog): Finding[] {
  const findings: Finding[] = [];
  const baseVersions = new Map(base.platform.versions.map((v) => [v.date, v]));
  const headVersions = head.platform.versions;
  headVersions.forEach((version, i) => {
    if (version.status === 'retired') return;
    if (baseVersions.has(version.date)) {
      for (const change of classifyViews(catalogView(base, version.date), catalogView(head, version.date))) {
        findings.push({ change, versions: [version.date], gated: false, error: change.breaking });
      }
      return;
    }
    const previous = headVersions[i - 1];
    const before = previous ? catalogView(head, previous.date) : emptyView(head);
    const days = noticeDays(version);
    const notice = { ...(version.announced ? { announced: version.announced } : {}), ...(days !== undefined ? { days } : {}) };
    for (const change of classifyViews(before, catalogView(head, version.date))) {
      const announcedInTime = days !== undefined && days >= NOTICE_DAYS;
      findings.push({ change, versions: [version.date], gated: true, notice, error: change.breaking && !announcedInTime });
    }
  });
  findings.push(...droppedVersions(base, head));
  return merge(findings);
}

/**
 * Versions the base serves that the working catalogue no longer does. Retiring a version on the sunset its
 * deprecation announced is the lifecycle docs/contract.md § Versions describes, not a change; dropping or retiring one
 * without that notice breaks its clients.
 */
function droppedVersions(base: Catalog, head: Catalog): Finding[] {
  const out: Finding[] = [];
  for (const version of base.platform.versions.filter((v) => v.status !== 'retired')) {
    const now = head.platform.versions.find((v) => v.date === version.date);
    if (now && now.status !== 'retired') continue;
    if (now && version.sunset) continue;
    // The catalogue sorts versions by date; the entry is found by its date in the list as the file writes it.
    const status = ['versions', { element: version.date, by: 'date' }, 'status'] as const;
    const change: Change = now
      ? { class: 'version-retired', breaking: true, face: '', detail: version.date, at: { file: PLATFORM_FILE, path: status } }
      : { class: 'version-removed', breaking: true, face: '', detail: version.date, at: { file: PLATFORM_FILE, path: ['versions'], key: true } };
    out.push({ change, versions: [version.date], gated: false, error: true });
  }
  return out;
}

/** One finding per change seen at several versions alike (a scope change is seen at every one). */
function merge(findings: Finding[]): Finding[] {
  const byKey = new Map<string, Finding>();
  for (const finding of findings) {
    const { change, gated } = finding;
    // A gated change belongs to its one version; others merge across the versions that see them.
    const key = JSON.stringify([gated, gated ? finding.versions : [], change]);
    const same = byKey.get(key);
    if (same) same.versions.push(...finding.versions.filter((v) => !same.versions.includes(v)));
    else byKey.set(key, { ...finding, versions: [...finding.versions] });
  }
  return [...byKey.values()].map((f) => ({ ...f, versions: f.versions.sort() }));
}
