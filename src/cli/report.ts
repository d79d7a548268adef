/**
 * How `generate` and `check` tell what they found: `text` prints each diagnostic as `file:line:col severity
 * code message` on stderr as it comes; `json` prints nothing until the end, then one JSON document on stdout
 * (`{ok, diagnostics: [{file, line, col, severity, code, message}], ...}`) for editors and CI tools.
 */
import { InvalidArgumentError } from 'commander';
import { formatDiagnostic, type Diagnostic } from '../spec/diagnostics.js';

export type Format = 'text' | 'json';

export interface Reporter {
  readonly format: Format;
  /** Diagnostics of the face files (printed at once as text). */
  diagnostics(found: readonly Diagnostic[]): void;
  /** A line for people (text only). */
  say(line: string, stream?: 'out' | 'err'): void;
  /** Ends the run: the JSON document, with what the command adds to it. */
  finish(ok: boolean, extra?: Record<string, unknown>): void;
}

export function parseFormat(value: string): Format {
  if (value !== 'text' && value !== 'json') throw new InvalidArgumentError('choose text or json.');
  return value;
}

export function reporter(format: Format = 'text'): Reporter {
  const collected: Diagnostic[] = [];
  return {
    format,
    diagnostics(found) {
      collected.push(...found);
      if (format === 'text') for (const d of found) console.error(formatDiagnostic(d));
    },
    say(line, stream = 'out') {
      if (format === 'text') (stream === 'out' ? console.log : console.error)(line);
    },
    finish(ok, extra = {}) {
      if (format === 'json') console.log(JSON.stringify({ ok, diagnostics: collected, ...extra }, null, 2));
    },
  };
}
