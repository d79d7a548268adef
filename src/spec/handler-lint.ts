/**
 * Lint rules that read the face modules (`src/faces/<face>/`, their handlers in `handlers.ts`) beside the face files, so that the flags
 * a face file declares match what its handlers do:
 * - a handler that reaches `ctx.providers` (a backend with effects outside the store: a model provider, a
 *   mail transport, ...) must be declared `atomic: false`, since an atomic batch could not roll it back;
 * - a handler that writes to `ctx.stream` must be declared `stream: true`.
 * Only the handler's own body is read (the TypeScript syntax tree, no type-checking), which is what keeps the
 * rule cheap; a module without the expected `export const handlers = { ... }` is left to the type-checker.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ts } from 'ts-morph';
import { memo } from '../memo/memo.js';
import { tsMorph } from './ts-morph-on-demand.js';
import { diagnostic, type Diagnostic } from './diagnostics.js';
import type { Face } from './model.js';
import { shownPath } from './shown-path.js';
import type { SourceFile } from './source.js';

/** Where a handler body touches something, as `file:line`. */
interface Use {
  providers?: string;
  stream?: string;
}

/** A face's module and the file of its handlers, in the modules' directory (`src/faces`). */
export function moduleFiles(modulesDir: string, face: string): { index: string; handlers: string } {
  return { index: join(modulesDir, face, 'index.ts'), handlers: join(modulesDir, face, 'handlers.ts') };
}

/** `pending`: module files about to be written (`dispatch new`), by path, read instead of the disk. */
export function lintHandlers(face: Face, source: SourceFile, modulesDir: string, pending?: ReadonlyMap<string, string>): Diagnostic[] {
  const files = moduleFiles(modulesDir, face.name);
  // No modules directory at all: a catalogue generated for its docs, client or tables alone.
  if (face.builtin || (!existsSync(modulesDir) && !pending?.has(files.index))) return [];
  const read = (file: string) => pending?.get(file) ?? (existsSync(file) ? readFileSync(file, 'utf8') : undefined);
  if (read(files.index) === undefined) return [diagnostic('handler-module-missing', source.at(['face']), { face: face.name, file: shownPath(files.index), type: face.typeName })];
  // Handlers written in index.ts itself are read there.
  const file = read(files.handlers) === undefined ? files.index : files.handlers;
  const text = read(file)!;
  // Memoized by the module's text: a run whose handlers did not change loads no compiler.
  const shown = shownPath(file);
  const uses = memo('handler-uses', { shown, text }, () => handlerUses(shown, text));
  const out: Diagnostic[] = [];
  for (const action of face.actions) {
    const use = Object.hasOwn(uses, action.name) ? uses[action.name] : undefined;
    const at = source.at(['actions', action.name], true);
    if (use?.providers && action.atomic) out.push(diagnostic('atomic-flag-missing', at, { action: action.id, where: use.providers }));
    if (use?.stream && !action.stream) out.push(diagnostic('stream-flag-missing', at, { action: action.id, where: use.stream }));
  }
  return out;
}

/**
 * For each handler method of `export const handlers = { ... }`, where it first uses providers and the stream.
 * ts-morph's own copy of the compiler, which the formatter's thread prints with too.
 */
function handlerUses(shown: string, text: string): Record<string, Use> {
  const { ts } = tsMorph();
  const tree = ts.createSourceFile(shown, text, ts.ScriptTarget.ES2022, true);
  const where = (node: ts.Node) => `${shown}:${tree.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const uses: Record<string, Use> = {};
  const handlers = handlerObject(tree);
  for (const member of handlers?.properties ?? []) {
    const name = member.name && ts.isIdentifier(member.name) ? member.name.text : undefined;
    if (!name) continue;
    const use: Use = {};
    const visit = (node: ts.Node): void => {
      if (ts.isPropertyAccessExpression(node) || ts.isBindingElement(node)) {
        const key = ts.isPropertyAccessExpression(node) ? node.name.text : (node.propertyName ?? node.name).getText(tree);
        if (key === 'providers') use.providers ??= where(node);
        if (key === 'stream') use.stream ??= where(node);
      }
      ts.forEachChild(node, visit);
    };
    visit(member);
    uses[name] = use;
  }
  return uses;
}

function handlerObject(tree: ts.SourceFile): ts.ObjectLiteralExpression | undefined {
  const { ts } = tsMorph();
  for (const statement of tree.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      const init = declaration.initializer;
      if (ts.isIdentifier(declaration.name) && declaration.name.text === 'handlers' && init && ts.isObjectLiteralExpression(init)) return init;
    }
  }
  return undefined;
}
