/**
 * TypeScript source for the statement structures the emitters build that print-declarations.ts does not lay
 * out itself (the client's functions and class, the catalogue-wide generic types, imports), in place of
 * ts-morph's printStructure: the same statements and members in the same order, the same JSDoc, and the same
 * blank lines between them, which are all prettier keeps of the whitespace. prettier then formats it to the
 * text it formats ts-morph's to, and a run never loads the TypeScript compiler under ts-morph to print.
 *
 * It prints the features the emitters use, and throws `Unsupported` on any other; such a chunk goes to
 * ts-morph as before. test/generate/own-printers.test.ts holds prettier's output of the two equal on every
 * chunk of the shipped and the large catalogue.
 */
import type {
  ClassDeclarationStructure,
  ConstructorDeclarationStructure,
  ExportDeclarationStructure,
  FunctionDeclarationStructure,
  ImportDeclarationStructure,
  InterfaceDeclarationStructure,
  MethodDeclarationStructure,
  OptionalKind,
  ParameterDeclarationStructure,
  PropertyDeclarationStructure,
  PropertySignatureStructure,
  StatementStructures,
  TypeAliasDeclarationStructure,
  TypeParameterDeclarationStructure,
  VariableStatementStructure,
} from 'ts-morph';
import { jsDoc, only, Unsupported } from './prettier-layout.js';
import { StructureKind } from './structure-kinds.js';

/** The chunk's source, or undefined when it holds a structure this printer does not print. */
export function printStructures(statements: StatementStructures[]): string | undefined {
  try {
    return joinStatements(statements, statements.map(statementText));
  } catch (error) {
    if (error instanceof Unsupported) return undefined;
    throw error;
  }
}

/**
 * Statements printed one by one (each without the line break after it), joined as ts-morph separates them,
 * which prettier keeps.
 */
export function joinStatements(statements: StatementStructures[], texts: string[]): string {
  return `${block(statements.map((node, i) => ({ text: texts[i]!, apart: SET_APART.has(node.kind) })))}\n`;
}

/** The kinds ts-morph sets apart by a blank line before them: the block-bodied declarations. */
const SET_APART = new Set<StatementStructures['kind']>([StructureKind.Interface, StructureKind.Function, StructureKind.Class]);

/** A statement and whether ts-morph sets it apart by a blank line before it (a block-bodied declaration). */
interface Printed {
  text: string;
  apart: boolean;
}

/**
 * Statements one after the other, as ts-morph separates them: by a blank line after a closing brace or
 * before a function, class or interface, by a line break otherwise.
 */
function block(printed: Printed[]): string {
  return printed.map(({ text, apart }, i) => (i === 0 ? text : `${apart || printed[i - 1]!.text.trimEnd().endsWith('}') ? '\n\n' : '\n'}${text}`)).join('');
}

function statementText(node: StatementStructures): string {
  switch (node.kind) {
    case StructureKind.ImportDeclaration:
      return importDeclaration(node);
    case StructureKind.ExportDeclaration:
      return exportDeclaration(node);
    case StructureKind.VariableStatement:
      return variableStatement(node);
    case StructureKind.TypeAlias:
      return typeAlias(node);
    case StructureKind.Interface:
      return interfaceDeclaration(node);
    case StructureKind.Function:
      return functionDeclaration(node);
    case StructureKind.Class:
      return classDeclaration(node);
    default:
      throw new Unsupported();
  }
}

function importDeclaration(node: ImportDeclarationStructure): string {
  only(node, ['isTypeOnly', 'moduleSpecifier', 'namedImports']);
  if (!Array.isArray(node.namedImports) || node.namedImports.length === 0) throw new Unsupported();
  const names = node.namedImports.map((named) => {
    if (typeof named === 'string') return named;
    if (typeof named === 'function') throw new Unsupported();
    only(named, ['name', 'isTypeOnly']);
    return `${named.isTypeOnly ? 'type ' : ''}${named.name}`;
  });
  return `import ${node.isTypeOnly ? 'type ' : ''}{ ${names.join(', ')} } from ${JSON.stringify(node.moduleSpecifier)};`;
}

function exportDeclaration(node: ExportDeclarationStructure): string {
  only(node, ['moduleSpecifier']);
  if (node.moduleSpecifier === undefined) throw new Unsupported();
  return `export * from ${JSON.stringify(node.moduleSpecifier)};`;
}

function variableStatement(node: VariableStatementStructure): string {
  only(node, ['isExported', 'declarationKind', 'docs', 'declarations']);
  const declarations = node.declarations.map((declaration) => {
    only(declaration, ['name', 'type', 'initializer']);
    return `${declaration.name}${typed(declaration.type)}${initialized(declaration.initializer)}`;
  });
  return documented(node.docs, `${exported(node)}${node.declarationKind ?? 'let'} ${declarations.join(', ')};`);
}

function typeAlias(node: TypeAliasDeclarationStructure): string {
  only(node, ['name', 'isExported', 'docs', 'typeParameters', 'type']);
  return documented(node.docs, `${exported(node)}type ${node.name}${typeParameters(node.typeParameters)} = ${text(node.type)};`);
}

function interfaceDeclaration(node: InterfaceDeclarationStructure): string {
  only(node, ['name', 'isExported', 'docs', 'typeParameters', 'properties', 'methods']);
  // ts-morph would set properties and methods apart; no emitter mixes them.
  if (node.properties?.length && node.methods?.length) throw new Unsupported();
  const members = [
    ...(node.properties ?? []).map((property: OptionalKind<PropertySignatureStructure>) => {
      only(property, ['name', 'docs', 'type', 'hasQuestionToken', 'isReadonly']);
      return documented(property.docs, `${property.isReadonly ? 'readonly ' : ''}${property.name}${property.hasQuestionToken ? '?' : ''}${typed(property.type)};`);
    }),
    ...(node.methods ?? []).map((method) => {
      only(method, ['name', 'docs', 'parameters', 'returnType']);
      return documented(method.docs, `${method.name}${parameters(method.parameters)}${typed(method.returnType)};`);
    }),
  ];
  return documented(node.docs, `${exported(node)}interface ${node.name}${typeParameters(node.typeParameters)} {\n${members.join('\n')}\n}`);
}

function functionDeclaration(node: FunctionDeclarationStructure): string {
  only(node, ['name', 'isExported', 'isAsync', 'docs', 'typeParameters', 'parameters', 'returnType', 'statements']);
  const head = `${exported(node)}${node.isAsync ? 'async ' : ''}function ${node.name}${typeParameters(node.typeParameters)}${parameters(node.parameters)}${typed(node.returnType)}`;
  return documented(node.docs, `${head} ${body(node.statements)}`);
}

/** A class's members as ts-morph orders them: properties a line each, then its constructors and methods, each set apart. */
function classDeclaration(node: ClassDeclarationStructure): string {
  only(node, ['name', 'isExported', 'docs', 'extends', 'properties', 'ctors', 'methods']);
  const properties = (node.properties ?? []).map((property: OptionalKind<PropertyDeclarationStructure>) => {
    only(property, ['name', 'docs', 'isReadonly', 'type', 'initializer']);
    return documented(property.docs, `${property.isReadonly ? 'readonly ' : ''}${property.name}${typed(property.type)}${initialized(property.initializer)};`);
  });
  const ctors = (node.ctors ?? []).map((ctor: OptionalKind<ConstructorDeclarationStructure>) => {
    only(ctor, ['docs', 'parameters', 'statements']);
    return documented(ctor.docs, `constructor${parameters(ctor.parameters)} ${body(ctor.statements)}`);
  });
  const methods = (node.methods ?? []).map((method: OptionalKind<MethodDeclarationStructure>) => {
    only(method, ['name', 'docs', 'isAsync', 'typeParameters', 'parameters', 'returnType', 'statements']);
    const head = `${method.isAsync ? 'async ' : ''}${method.name}${typeParameters(method.typeParameters)}${parameters(method.parameters)}${typed(method.returnType)}`;
    return documented(method.docs, `${head} ${body(method.statements)}`);
  });
  const members = [properties.join('\n'), ...ctors, ...methods].filter((member) => member !== '');
  const extended = node.extends === undefined ? '' : ` extends ${text(node.extends)}`;
  return documented(node.docs, `${exported(node)}class ${node.name}${extended} {\n${members.join('\n\n')}\n}`);
}

/** A body of statements given as text, separated as ts-morph separates a file's statements. */
function body(statements: FunctionDeclarationStructure['statements']): string {
  if (statements === undefined) return '{}';
  const list = typeof statements === 'string' ? [statements] : Array.isArray(statements) ? statements : undefined;
  if (!list) throw new Unsupported();
  return `{\n${block(list.map((item) => ({ text: text(item), apart: false })))}\n}`;
}

function parameters(list: OptionalKind<ParameterDeclarationStructure>[] | undefined): string {
  const printed = (list ?? []).map((parameter) => {
    only(parameter, ['name', 'type', 'hasQuestionToken', 'initializer']);
    return `${parameter.name}${parameter.hasQuestionToken ? '?' : ''}${typed(parameter.type)}${initialized(parameter.initializer)}`;
  });
  return `(${printed.join(', ')})`;
}

function typeParameters(list: (string | OptionalKind<TypeParameterDeclarationStructure>)[] | undefined): string {
  if (!list?.length) return '';
  const printed = list.map((parameter) => {
    if (typeof parameter === 'string') return parameter;
    only(parameter, ['name', 'constraint', 'default']);
    return `${parameter.name}${parameter.constraint === undefined ? '' : ` extends ${text(parameter.constraint)}`}${parameter.default === undefined ? '' : ` = ${text(parameter.default)}`}`;
  });
  return `<${printed.join(', ')}>`;
}

/** Text given as a string: a writer function (which the emitters never pass, and a thread cannot be sent) is refused. */
function text(value: unknown): string {
  if (typeof value !== 'string') throw new Unsupported();
  return value;
}

const typed = (type: unknown) => (type === undefined ? '' : `: ${text(type)}`);
const initialized = (initializer: unknown) => (initializer === undefined ? '' : ` = ${text(initializer)}`);
const exported = (node: { isExported?: boolean }) => (node.isExported ? 'export ' : '');
const documented = (docs: InterfaceDeclarationStructure['docs'], code: string) => [...jsDoc(docs, ''), code].join('\n');
