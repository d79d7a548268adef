/**
 * Rules `effect-missing`, `idempotent-missing`, `external-missing` and `read-not-idempotent`: every action
 * declares what a call does (`effect`), whether a repeat changes anything more (`idempotent`, implied by a
 * read) and whether it reaches outside the platform (`external`). They are declared rather than guessed
 * from names or handlers because clients act on them: an MCP client may run a read without asking, and
 * retries only what is idempotent. A rule rather than the meta-schema's `required`, so that `dispatch diff`
 * still reads a base committed before the declarations existed.
 */
import { diagnostic, type Diagnostic } from '../diagnostics.js';
import type { Face } from '../model.js';
import type { RawFace } from '../resolve.js';
import type { SourceFile } from '../source.js';

export function effects(face: Face, source: SourceFile): Diagnostic[] {
  const out: Diagnostic[] = [];
  const raw = source.value as RawFace;
  for (const action of face.actions) {
    const declared = raw.actions[action.name]!;
    const at = source.at(['actions', action.name], true);
    const args = { action: action.id, effect: action.effect };
    if (declared.effect === undefined) out.push(diagnostic('effect-missing', at, args));
    else if (declared.effect !== 'read' && declared.idempotent === undefined) out.push(diagnostic('idempotent-missing', at, args));
    if (declared.external === undefined) out.push(diagnostic('external-missing', at, args));
    if (declared.effect === 'read' && declared.idempotent === false) {
      out.push(diagnostic('read-not-idempotent', source.at(['actions', action.name, 'idempotent']), args));
    }
  }
  return out;
}
