/**
 * The ts-morph structure kinds the emitters build, as plain constants: the generator's printers take the
 * shapes of ts-morph's statement structures (print-declarations.ts), and taking these from ts-morph would load
 * the TypeScript compiler (about 0.2 s) on every generate, which never needs it to print.
 * test/generate/structure-kinds.test.ts holds them equal to ts-morph's own enums.
 */
import type { StructureKind as Kind, VariableDeclarationKind as DeclarationKind } from 'ts-morph';

export const StructureKind = {
  Class: 2 as Kind.Class,
  ExportDeclaration: 11 as Kind.ExportDeclaration,
  Function: 13 as Kind.Function,
  ImportDeclaration: 16 as Kind.ImportDeclaration,
  Interface: 19 as Kind.Interface,
  SourceFile: 36 as Kind.SourceFile,
  TypeAlias: 38 as Kind.TypeAlias,
  VariableStatement: 41 as Kind.VariableStatement,
} as const;

export const VariableDeclarationKind = { Const: 'const' as DeclarationKind.Const } as const;
