/**
 * The interfaces and type aliases of a chunk printed exactly as prettier formats what ts-morph prints of them,
 * without either: most of the generated TypeScript is such declarations (every payload, result and event
 * type, twice), and printing them here spares prettier most of a cold run's work.
 *
 * It knows the shapes the emitters give them (schema-to-type.ts: names, literals, unions, intersections,
 * arrays, tuples, object types with their JSDoc; handler methods) and prettier's layout of those shapes: a
 * line that fits in the print width stays flat; an object type that does not fit breaks one member a line; a
 * type alias's union that does not fit goes on the next line, or one member a line, each broken the same
 * way. Anything else, a shape or a layout it does not know, gives `undefined`, and the statement goes to
 * prettier (see format.ts). test/generate/own-printers.test.ts holds the two equal on every chunk of the
 * shipped and the large catalogue.
 */
import type { InterfaceDeclarationStructure, OptionalKind, MethodSignatureStructure as MethodStructure, StatementStructures, TypeAliasDeclarationStructure } from 'ts-morph';
import { fits, IDENTIFIER, jsDoc, only, prettierString, Unsupported } from './prettier-layout.js';
import { StructureKind } from './structure-kinds.js';

/**
 * One statement as prettier formats it, without the line break after it, or undefined when prettier must
 * format it. prettier formats a file's statements one by one, so a chunk may mix these with its own.
 */
export function printDeclaration(statement: StatementStructures): string | undefined {
  try {
    if (statement.kind === StructureKind.Interface) return printInterface(statement);
    if (statement.kind === StructureKind.TypeAlias) return printTypeAlias(statement);
    return undefined;
  } catch (error) {
    if (error instanceof Unsupported) return undefined;
    throw error;
  }
}

function printInterface(node: InterfaceDeclarationStructure): string {
  only(node, ['name', 'isExported', 'docs', 'properties', 'methods']);
  const { properties = [], methods = [] } = node;
  // ts-morph would set properties and methods apart by a blank line; no emitter mixes them.
  if (properties.length && methods.length) throw new Unsupported();
  const body = [
    ...properties.flatMap((property) => {
      only(property, ['name', 'type', 'hasQuestionToken', 'docs']);
      if (typeof property.type !== 'string') throw new Unsupported();
      return [...jsDoc(property.docs, '  '), ...member({ key: propertyKey(property.name), optional: !!property.hasQuestionToken, type: parseType(property.type) }, '  ')];
    }),
    ...methods.flatMap((method) => [...jsDoc(method.docs, '  '), ...methodSignature(method)]),
  ];
  const head = `${node.isExported ? 'export ' : ''}interface ${node.name} {`;
  return [...jsDoc(node.docs, ''), ...(body.length ? [head, ...body, '}'] : [`${head}}`])].join('\n');
}

function printTypeAlias(node: TypeAliasDeclarationStructure): string {
  only(node, ['name', 'isExported', 'docs', 'type']);
  const { name, isExported, docs, type } = node;
  if (typeof type !== 'string') throw new Unsupported();
  const head = `${isExported ? 'export ' : ''}type ${name} =`;
  const parsed = parseType(type);
  const lines = jsDoc(docs, '');
  const flatLine = `${head} ${flat(parsed)};`;
  if (fits(flatLine)) return [...lines, flatLine].join('\n');
  if (parsed.kind === 'object') return [...lines, ...objectLines(parsed, `${head} `, '', ';')].join('\n');
  // A named type and an object, as the emitters extend a schema: the object breaks where it stands.
  const [named, object] = parsed.kind === 'intersection' && parsed.items.length === 2 ? parsed.items : [];
  if (named?.kind === 'reference' && object?.kind === 'object') return [...lines, ...objectLines(object, `${head} ${flat(named)} & `, '', ';')].join('\n');
  if (parsed.kind !== 'union' || hugs(parsed)) throw new Unsupported();
  // A union that does not fit after `=` goes on the next line, and if it does not fit there either, one member
  // a line, an object member broken under its bar (prettier's align 2).
  const next = `  ${flat(parsed)};`;
  if (fits(next)) return [...lines, head, next].join('\n');
  const members = parsed.items.flatMap((item, i) => {
    const end = i === parsed.items.length - 1 ? ';' : '';
    const line = `  | ${flat(item)}${end}`;
    if (fits(line)) return [line];
    if (item.kind !== 'object') throw new Unsupported();
    return objectLines(item, '  | ', '    ', end);
  });
  return [...lines, head, ...members].join('\n');
}

/** A handler method: flat if it fits, otherwise one parameter a line. */
function methodSignature(method: MethodSignatureStructure): string[] {
  only(method, ['name', 'docs', 'parameters', 'returnType']);
  const params = (method.parameters ?? []).map((parameter) => {
    only(parameter, ['name', 'type']);
    if (typeof parameter.type !== 'string' || !IDENTIFIER.test(parameter.name)) throw new Unsupported();
    return `${parameter.name}: ${flat(parseType(parameter.type))}`;
  });
  if (typeof method.returnType !== 'string') throw new Unsupported();
  const result = flat(parseType(method.returnType));
  const line = `  ${method.name}(${params.join(', ')}): ${result};`;
  if (fits(line)) return [line];
  // With one parameter prettier may hug it instead; with several it breaks them one a line.
  const broken = [`  ${method.name}(`, ...params.map((p) => `    ${p},`), `  ): ${result};`];
  if (params.length < 2 || !broken.every(fits)) throw new Unsupported();
  return broken;
}

// --- Types, parsed from the text the emitters build ---

type TypeNode =
  | { kind: 'union'; items: TypeNode[] }
  | { kind: 'intersection'; items: TypeNode[] }
  | { kind: 'tuple'; items: TypeNode[] }
  | { kind: 'array'; of: TypeNode }
  | { kind: 'object'; members: Member[] }
  | { kind: 'reference'; name: string; args: TypeNode[] }
  | { kind: 'literal'; text: string };

interface Member {
  /** A JSDoc comment on the same line, before the member (an object type's members, as schema-to-type writes them). */
  comment?: string;
  /** As prettier prints it; `[key: string]` for an index signature. */
  key: string;
  optional: boolean;
  type: TypeNode;
}

const TOKEN = /\s*(\/\*\*(?:[^*]|\*(?!\/))*\*\/|"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?![\w.])|[A-Za-z_$][\w$]*|[{}[\]()|&;:?,<>])/y;

function parseType(text: string): TypeNode {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    const start = TOKEN.lastIndex;
    const match = TOKEN.exec(text);
    if (!match) {
      if (/^\s*$/.test(text.slice(start))) break;
      throw new Unsupported();
    }
    tokens.push(match[1]!);
  }
  let at = 0;
  const peek = () => tokens[at];
  const take = (expected?: string) => {
    const token = tokens[at++];
    if (token === undefined || (expected !== undefined && token !== expected)) throw new Unsupported();
    return token;
  };
  /** `next` once, or several times with `operator` between: a union of intersections of postfix types. */
  const operands = (operator: string, kind: 'union' | 'intersection', next: () => TypeNode) => (): TypeNode => {
    const items = [next()];
    while (peek() === operator) {
      take();
      items.push(next());
    }
    return items.length === 1 ? items[0]! : { kind, items };
  };
  const postfix = (): TypeNode => {
    let node = primary();
    while (peek() === '[' && tokens[at + 1] === ']') {
      at += 2;
      node = { kind: 'array', of: node };
    }
    return node;
  };
  const intersection = operands('&', 'intersection', () => postfix());
  const union = operands('|', 'union', intersection);
  const list = (close: string): TypeNode[] => {
    const items: TypeNode[] = [];
    while (peek() !== close) {
      items.push(union());
      if (peek() !== close) take(',');
    }
    take(close);
    return items;
  };
  const primary = (): TypeNode => {
    const token = take();
    if (token === '(') {
      // Brackets as written are dropped: prettier prints those the types need (see flat).
      const inner = union();
      take(')');
      return inner;
    }
    if (token === '[') return { kind: 'tuple', items: list(']') };
    if (token === '{') return { kind: 'object', members: members() };
    if (token.startsWith('"')) return { kind: 'literal', text: prettierString(token.slice(1, -1)) };
    if (/^-?\d/.test(token)) return { kind: 'literal', text: token };
    if (!IDENTIFIER.test(token)) throw new Unsupported();
    if (peek() !== '<') return { kind: 'reference', name: token, args: [] };
    take('<');
    return { kind: 'reference', name: token, args: list('>') };
  };
  const members = (): Member[] => {
    const out: Member[] = [];
    while (peek() !== '}') {
      const comment = peek()?.startsWith('/**') ? take() : undefined;
      // prettier re-indents a comment of several lines; schema-to-type writes them on one.
      if (comment && /[\r\n\u2028\u2029]/.test(comment)) throw new Unsupported();
      let key: string;
      if (peek() === '[') {
        take('[');
        const name = take();
        take(':');
        const keyType = take();
        take(']');
        if (!IDENTIFIER.test(name) || keyType !== 'string') throw new Unsupported();
        key = `[${name}: string]`;
      } else {
        key = propertyKey(take());
      }
      const optional = peek() === '?';
      if (optional) take();
      take(':');
      out.push({ comment, key, optional, type: union() });
      if (peek() !== '}') take(';');
    }
    take('}');
    return out;
  };
  const type = union();
  if (at !== tokens.length) throw new Unsupported();
  return type;
}

/** A member's key as prettier prints it: a name as it is, a quoted key in prettier's quotes. */
function propertyKey(key: string): string {
  if (IDENTIFIER.test(key)) return key;
  if (!key.startsWith('"')) throw new Unsupported();
  let value: unknown;
  try {
    value = JSON.parse(key);
  } catch {
    throw new Unsupported();
  }
  // prettier unquotes a key that can be a name (any Unicode identifier); the emitters quote only what cannot.
  if (typeof value !== 'string' || /^[\p{ID_Start}$_][\p{ID_Continue}$\u200c\u200d]*$/u.test(value) || /^\d/.test(value) || value === '') throw new Unsupported();
  return prettierString(key.slice(1, -1));
}

// --- Layout ---

/** The type on one line, as prettier prints it when it fits. */
function flat(node: TypeNode): string {
  switch (node.kind) {
    case 'union':
      return node.items.map((item) => grouped(item)).join(' | ');
    case 'intersection':
      return node.items.map((item) => grouped(item)).join(' & ');
    case 'tuple':
      return `[${node.items.map(flat).join(', ')}]`;
    case 'array':
      return `${grouped(node.of)}[]`;
    case 'object':
      return node.members.length ? `{ ${node.members.map(flatMember).join('; ')} }` : '{}';
    case 'reference':
      return node.args.length ? `${node.name}<${node.args.map(flat).join(', ')}>` : node.name;
    case 'literal':
      return node.text;
  }
}

/** A union or intersection inside another, or as an array's element, in the brackets prettier gives it. */
const grouped = (node: TypeNode) => (node.kind === 'union' || node.kind === 'intersection' ? `(${flat(node)})` : flat(node));

const flatMember = (m: Member) => `${m.comment ? `${m.comment} ` : ''}${m.key}${m.optional ? '?' : ''}: ${flat(m.type)}`;

/** A member of an interface or of a broken object type at `indent`, then `end`: flat if it fits, else its object broken. */
function member(m: Member, indent: string): string[] {
  const head = `${indent}${m.comment ? `${m.comment} ` : ''}${m.key}${m.optional ? '?' : ''}: `;
  const line = `${head}${flat(m.type)};`;
  if (fits(line)) return [line];
  // An object type, or an array of one, breaks its braces; a union or anything else here is left to prettier.
  let object = m.type;
  let brackets = '';
  while (object.kind === 'array') {
    object = object.of;
    brackets += '[]';
  }
  if (object.kind !== 'object') throw new Unsupported();
  return objectLines(object, head, indent, `${brackets};`);
}

/**
 * An object type broken after `head`: its members a line each, one level in from `indent`, then `}` and `end`.
 * When `head{` itself does not fit, prettier breaks before the object instead, a layout left to it.
 */
function objectLines(object: Extract<TypeNode, { kind: 'object' }>, head: string, indent: string, end: string): string[] {
  if (object.members.length === 0 || !fits(`${head}{`)) throw new Unsupported();
  return [`${head}{`, ...object.members.flatMap((m) => member(m, `${indent}  `)), `${indent}}${end}`];
}

/** Whether prettier may hug the union (an object with `null` or `void` beside it), a layout not printed here; erring towards yes. */
const hugs = (union: Extract<TypeNode, { kind: 'union' }>) => union.items.some((item) => item.kind === 'reference' && ['null', 'void', 'undefined'].includes(item.name));

// --- JSDoc ---

/** The docs as ts-morph writes them and prettier re-indents them, at `indent`. */
type MethodSignatureStructure = OptionalKind<MethodStructure>;
