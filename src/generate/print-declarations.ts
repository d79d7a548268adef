/**
 * The statements of the generated type files, printed: imports and re-exports, and interfaces and type
 * aliases (every payload, result and event type, the handler interfaces, the catalogue-wide maps), each with
 * its JSDoc, their types laid out by print-types.ts. A chunk of statements is printed one statement after the
 * other, a blank line before an interface and after a closing brace. The shapes are those of ts-morph's
 * statement structures, which the emitters build, narrowed to what the generator writes.
 */
import { fits, IDENTIFIER, jsDoc, quoted } from './layout.js';
import { flat, hugsObject, memberLines, parseType, typeLines } from './print-types.js';
import { StructureKind } from './structure-kinds.js';

export interface PropertySignature {
  /** A name, or a key the emitter quoted as JSON. */
  name: string;
  type: string;
  hasQuestionToken?: boolean;
  docs?: string[];
}

export interface MethodSignature {
  name: string;
  docs?: string[];
  parameters: { name: string; type: string }[];
  returnType: string;
}

/** A type parameter: its name, and the text of its constraint. */
export interface TypeParameter {
  name: string;
  constraint?: string;
}

export interface InterfaceDeclaration {
  kind: typeof StructureKind.Interface;
  name: string;
  isExported?: boolean;
  docs?: string[];
  typeParameters?: TypeParameter[];
  properties?: PropertySignature[];
  methods?: MethodSignature[];
}

export interface TypeAliasDeclaration {
  kind: typeof StructureKind.TypeAlias;
  name: string;
  isExported?: boolean;
  docs?: string[];
  type: string;
}

export interface ImportDeclaration {
  kind: typeof StructureKind.ImportDeclaration;
  isTypeOnly?: boolean;
  moduleSpecifier: string;
  namedImports: (string | { name: string; isTypeOnly?: boolean })[];
}

/** `export * from` the module. */
export interface ExportDeclaration {
  kind: typeof StructureKind.ExportDeclaration;
  moduleSpecifier: string;
}

export type Declaration = InterfaceDeclaration | TypeAliasDeclaration | ImportDeclaration | ExportDeclaration;

/**
 * A chunk's statements, printed, and ended by a line break. A string is a statement the emitter wrote out
 * itself, in its final layout (a catalogue-wide type no schema makes).
 */
export function printStatements(statements: (Declaration | string)[]): string {
  let text = '';
  statements.forEach((statement, i) => {
    const printed = typeof statement === 'string' ? statement : printDeclaration(statement);
    const apart = typeof statement !== 'string' && statement.kind === StructureKind.Interface;
    if (i > 0) text += apart || text.endsWith('}') ? '\n\n' : '\n';
    text += printed;
  });
  return `${text}\n`;
}

function printDeclaration(node: Declaration): string {
  switch (node.kind) {
    case StructureKind.Interface:
      return printInterface(node);
    case StructureKind.TypeAlias:
      return printTypeAlias(node);
    case StructureKind.ImportDeclaration:
      return printImport(node);
    case StructureKind.ExportDeclaration:
      return `export * from ${quoted(node.moduleSpecifier)};`;
  }
}

/** On one line if it fits, else a name a line; a single name never breaks. */
function printImport(node: ImportDeclaration): string {
  const names = node.namedImports.map((named) => (typeof named === 'string' ? named : `${named.isTypeOnly ? 'type ' : ''}${named.name}`));
  const head = `import ${node.isTypeOnly ? 'type ' : ''}{`;
  const from = `} from ${quoted(node.moduleSpecifier)};`;
  const line = names.length ? `${head} ${names.join(', ')} ${from}` : `${head}${from}`;
  if (fits(line) || names.length <= 1) return line;
  return [head, ...names.map((name) => `  ${name},`), from].join('\n');
}

function printInterface(node: InterfaceDeclaration): string {
  const { properties = [], methods = [] } = node;
  const body = [
    ...properties.flatMap((property) => [
      ...jsDoc(property.docs, '  '),
      ...memberLines({ key: propertyKey(property.name), optional: !!property.hasQuestionToken, type: parseType(property.type) }, '  '),
    ]),
    ...methods.flatMap((method) => [...jsDoc(method.docs, '  '), ...methodLines(method)]),
  ];
  const head = `${node.isExported ? 'export ' : ''}interface ${node.name}${typeParameters(node.typeParameters)} {`;
  return [...jsDoc(node.docs, ''), ...(body.length ? [head, ...body, '}'] : [`${head}}`])].join('\n');
}

/**
 * A type alias: on its line if it fits; an object (or a named type and an object) broken where it stands; a
 * union on the next line if it fits there, else one member a line; any other type broken by its kind.
 */
function printTypeAlias(node: TypeAliasDeclaration): string {
  const head = `${node.isExported ? 'export ' : ''}type ${node.name} =`;
  const parsed = parseType(node.type);
  const docs = jsDoc(node.docs, '');
  if (parsed.kind === 'union' && !fits(`${head} ${flat(parsed)};`) && !hugsObject(parsed)) {
    const next = `  ${flat(parsed)};`;
    if (fits(next)) return [...docs, head, next].join('\n');
  }
  return [...docs, ...typeLines(parsed, `${head} `, '', ';')].join('\n');
}

/** A handler method: on its line if it fits, otherwise one parameter a line. */
function methodLines(method: MethodSignature): string[] {
  const params = method.parameters.map((parameter) => ({ name: parameter.name, type: parseType(parameter.type) }));
  const result = parseType(method.returnType);
  const line = `  ${method.name}(${params.map((p) => `${p.name}: ${flat(p.type)}`).join(', ')}): ${flat(result)};`;
  if (fits(line)) return [line];
  return [`  ${method.name}(`, ...params.flatMap((p) => typeLines(p.type, `    ${p.name}: `, '    ', ',')), ...typeLines(result, '  ): ', '  ', ';')];
}

/** A member's key: a name as it is, a key the emitter quoted in the printer's quotes. */
function propertyKey(name: string): string {
  if (IDENTIFIER.test(name) || !name.startsWith('"')) return name;
  return quoted(JSON.parse(name) as string);
}

function typeParameters(list: TypeParameter[] | undefined): string {
  if (!list?.length) return '';
  return `<${list.map((p) => `${p.name}${p.constraint === undefined ? '' : ` extends ${p.constraint}`}`).join(', ')}>`;
}
