/**
 * Rule `unknown-unit`: every unit an action prices per (`cost.perUnit`) is declared under `units` in
 * platform.yaml. A misspelt unit (`outputToken`) would otherwise price nothing: the handler reports the
 * declared name and the call is charged only its `perCall`.
 */
import { diagnostic, type Diagnostic } from '../diagnostics.js';
import type { Face, Platform } from '../model.js';
import type { SourceFile } from '../source.js';

/** Reports each undeclared unit at its key in the face file. */
export function unknownUnit(face: Face, source: SourceFile, platform: Platform): Diagnostic[] {
  const declared = new Set(platform.units.map((u) => u.name));
  const names = platform.units.map((u) => u.name).join(', ') || 'none';
  return face.actions.flatMap((action) =>
    Object.keys(action.cost.perUnit)
      .filter((unit) => !declared.has(unit))
      .map((unit) => diagnostic('unknown-unit', source.at(['actions', action.name, 'cost', 'perUnit', unit], true), { unit, declared: names })),
  );
}
