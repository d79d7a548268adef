/**
 * Findings in the forms `dispatch diff` prints: each change at its `file:line:col`, as a diagnostic when it
 * is an error (`breaking-change`, or `breaking-change-notice` behind a version announced too late) and as
 * an information line otherwise; and the JSON rows CI reads.
 */
import { diagnostic, formatDiagnostic, type Diagnostic } from '../spec/diagnostics.js';
import { describeChange } from './change.js';
import type { Finding } from './gate.js';
import type { Locate, Position } from './locate.js';

export interface DiffEntry extends Position {
  class: string;
  breaking: boolean;
  /** `face.action` id, or null for changes to a face, an event type or the platform. */
  action: string | null;
  face: string | null;
  event: string | null;
  /** The event of the action's stream it is about. */
  streamEvent: string | null;
  field: string | null;
  /** The first version that sees the change. */
  version: string;
  versions: string[];
  gated: boolean;
  /** Breaking and not allowed: what makes the command exit 1. */
  error: boolean;
  message: string;
}

export interface DiffReport {
  entries: DiffEntry[];
  diagnostics: Diagnostic[];
}

export function diffReport(findings: Finding[], locate: Locate): DiffReport {
  const entries: DiffEntry[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const finding of findings) {
    const { change, versions } = finding;
    const where = locate(change.at);
    const described = describeChange(change);
    let message: string;
    if (finding.error) {
      const d = finding.gated
        ? diagnostic('breaking-change-notice', where, { version: versions[0]!, change: `${described} (${change.class})`, detail: noticeWords(finding) })
        : diagnostic('breaking-change', where, { change: capitalize(described), versions: versionWords(versions), class: change.class });
      diagnostics.push(d);
      message = d.message;
    } else if (change.breaking) {
      message = `Version ${versions[0]} ${described}, a breaking change gated behind a version ${noticeWords(finding)}.`;
    } else {
      message = `${capitalize(described)} in ${versionWords(versions)}.`;
    }
    entries.push({
      ...where,
      class: change.class,
      breaking: change.breaking,
      action: change.action ?? null,
      face: change.face || null,
      event: change.event ?? null,
      streamEvent: change.streamEvent ?? null,
      field: change.field ?? null,
      version: versions[0]!,
      versions,
      gated: finding.gated,
      error: finding.error,
      message,
    });
  }
  entries.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.col - b.col || a.class.localeCompare(b.class) || a.message.localeCompare(b.message));
  return { entries, diagnostics };
}

/** The human output: errors as diagnostics, then allowed breaking changes and additive ones, then a summary. */
export function humanLines(report: DiffReport, base: string): { errors: string[]; info: string[] } {
  const errors = [...report.diagnostics]
    .sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.col - b.col || a.message.localeCompare(b.message))
    .map(formatDiagnostic);
  const label = (e: DiffEntry) => (e.breaking ? 'allowed' : 'additive');
  const info = report.entries.filter((e) => !e.error).map((e) => `${e.file}:${e.line}:${e.col} ${label(e)} ${e.class} ${e.message}`);
  const breaking = report.entries.filter((e) => e.breaking);
  const allowed = breaking.filter((e) => !e.error).length;
  const additive = report.entries.length - breaking.length;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  info.push(
    `${plural(breaking.length, 'breaking change')} (${allowed} gated behind a new version announced in time), ` +
      `${plural(additive, 'additive change')} against ${base}.`,
  );
  return { errors, info };
}

function noticeWords(finding: Finding): string {
  const notice = finding.notice;
  if (!notice?.announced) return 'platform.yaml gives it no "announced" date';
  return `announced ${notice.announced}, ${notice.days} days before`;
}

function versionWords(versions: string[]): string {
  return versions.length === 1 ? `version ${versions[0]}` : `versions ${versions.join(', ')}`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
