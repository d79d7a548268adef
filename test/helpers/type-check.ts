/**
 * Type-checks TypeScript files as a consumer's strict project would (ES2022, NodeNext modules), all in one
 * program, and gives each problem as `file: message` so that a failing test names the file.
 */
import { basename } from 'node:path';
import ts from 'typescript';

export function typeProblems(files: readonly string[], options: ts.CompilerOptions = {}): string[] {
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    ...options,
  });
  return ts.getPreEmitDiagnostics(program).map((d) => `${d.file ? basename(d.file.fileName) : 'program'}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}
