/**
 * Rule `unknown-error-code`, over the whole catalogue: every code an action lists under `errors` is declared,
 * by some face or by the platform. An action may answer another face's code (billing's `payInvoice` charges
 * through payments and answers its 402 `card_declined`), as the served catalogue's error table holds them all;
 * a code no one declares would be answered as a 500, so a misspelt one is reported with the code it may mean.
 */
import { diagnostic, type Diagnostic } from '../diagnostics.js';
import type { Face } from '../model.js';
import type { RawFace } from '../resolve.js';
import type { SourceFile } from '../source.js';
import { STANDARD_ERRORS } from '../standard-errors.js';
import { suggestion } from '../suggest.js';

/** Reports each undeclared code at its entry in the action's `errors`. */
export function unknownErrorCodes(faces: readonly { face: Face; source: SourceFile }[]): Diagnostic[] {
  const declared = new Set([...STANDARD_ERRORS.map((e) => e.code), ...faces.flatMap(({ face }) => face.errors.map((e) => e.code))]);
  const out: Diagnostic[] = [];
  for (const { face, source } of faces) {
    const raw = source.value as RawFace;
    for (const action of face.actions) {
      const written = raw.actions[action.name]!.errors ?? [];
      written.forEach((code, i) => {
        if (!declared.has(code)) out.push(diagnostic('unknown-error-code', source.at(['actions', action.name, 'errors', i]), { code, hint: suggestion(code, declared) }));
      });
    }
  }
  return out;
}
