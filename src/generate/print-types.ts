/**
 * Type text as the emitters build it (schema-to-type.ts: names, literals, unions, intersections, arrays,
 * tuples, object types with their JSDoc, generic references), read into a tree and laid out: a type that
 * fits its line stays on it; one that does not breaks where it can (an object one member a line, a union one
 * member a line under its bars, a tuple or a generic's arguments one a line), each part broken the same way
 * in turn. Every type the emitters build has a layout; a text that is not one of them is a bug of the
 * emitter, and fails the run.
 */
import { fits, IDENTIFIER, quoteRaw } from './layout.js';

export type TypeNode =
  | { kind: 'union'; items: TypeNode[] }
  | { kind: 'intersection'; items: TypeNode[] }
  | { kind: 'tuple'; items: TypeNode[] }
  | { kind: 'array'; of: TypeNode }
  | { kind: 'indexed'; of: TypeNode; index: TypeNode }
  | { kind: 'object'; members: Member[] }
  | { kind: 'reference'; name: string; args: TypeNode[] }
  | { kind: 'literal'; text: string };

type ObjectNode = Extract<TypeNode, { kind: 'object' }>;

interface Member {
  /** A JSDoc comment on the same line, before the member (an object type's members, as schema-to-type writes them). */
  comment?: string;
  /** As printed: a name, a quoted key, or `[key: string]` for an index signature. */
  key: string;
  optional: boolean;
  type: TypeNode;
}

const TOKEN = /\s*(\/\*\*(?:[^*]|\*(?!\/))*\*\/|"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?(?![\w.])|[A-Za-z_$][\w$]*|[{}[\]()|&;:?,<>])/y;

/** The type the text spells; throws on text no emitter writes. */
export function parseType(text: string): TypeNode {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    const start = TOKEN.lastIndex;
    const match = TOKEN.exec(text);
    if (!match) {
      if (/^\s*$/.test(text.slice(start))) break;
      throw unreadable(text);
    }
    tokens.push(match[1]!);
  }
  let at = 0;
  const peek = () => tokens[at];
  const take = (expected?: string) => {
    const token = tokens[at++];
    if (token === undefined || (expected !== undefined && token !== expected)) throw unreadable(text);
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
    while (peek() === '[') {
      take('[');
      if (peek() === ']') {
        take(']');
        node = { kind: 'array', of: node };
      } else {
        const index = union();
        take(']');
        node = { kind: 'indexed', of: node, index };
      }
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
      // Brackets as written are dropped: the layout writes those the types need (see grouped).
      const inner = union();
      take(')');
      return inner;
    }
    if (token === '[') return { kind: 'tuple', items: list(']') };
    if (token === '{') return { kind: 'object', members: members() };
    if (token.startsWith('"')) return { kind: 'literal', text: quoteRaw(token.slice(1, -1)) };
    // An exponent as JavaScript writes it shortest: 1e21, not 1E+21.
    if (/^-?\d/.test(token)) return { kind: 'literal', text: token.toLowerCase().replace('e+', 'e') };
    if (!IDENTIFIER.test(token)) throw unreadable(text);
    if (peek() !== '<') return { kind: 'reference', name: token, args: [] };
    take('<');
    return { kind: 'reference', name: token, args: list('>') };
  };
  const members = (): Member[] => {
    const out: Member[] = [];
    while (peek() !== '}') {
      const comment = peek()?.startsWith('/**') ? take() : undefined;
      let key: string;
      if (peek() === '[') {
        take('[');
        const name = take();
        take(':');
        const keyType = take();
        take(']');
        if (!IDENTIFIER.test(name) || keyType !== 'string') throw unreadable(text);
        key = `[${name}: string]`;
      } else {
        key = propertyKey(take(), text);
      }
      const optional = peek() === '?';
      if (optional) take();
      take(':');
      out.push({ comment, key, optional, type: union() });
      // Members end in `;` as the emitters write them, or `,` in a JSON object given as a `const`.
      if (peek() !== '}') take(peek() === ',' ? ',' : ';');
    }
    take('}');
    return out;
  };
  const type = union();
  if (at !== tokens.length) throw unreadable(text);
  return type;
}

const unreadable = (text: string) => new Error(`The generator cannot lay out the type ${JSON.stringify(text)}: no emitter writes such a type.`);

/** A member's key: a name as it is, a quoted key in the printer's quotes. */
function propertyKey(key: string, text: string): string {
  if (IDENTIFIER.test(key)) return key;
  if (!key.startsWith('"')) throw unreadable(text);
  const raw = key.slice(1, -1);
  // A JSON key that needs no quotes (a `const` object's) is written as a name.
  return IDENTIFIER.test(raw) ? raw : quoteRaw(raw);
}

/** The type on one line. */
export function flat(node: TypeNode): string {
  switch (node.kind) {
    case 'union':
      return node.items.map(grouped).join(' | ');
    case 'intersection':
      return node.items.map(grouped).join(' & ');
    case 'tuple':
      return `[${node.items.map(flat).join(', ')}]`;
    case 'array':
      return `${grouped(node.of)}[]`;
    case 'indexed':
      return `${grouped(node.of)}[${flat(node.index)}]`;
    case 'object':
      return node.members.length ? `{ ${node.members.map(flatMember).join('; ')} }` : '{}';
    case 'reference':
      return node.args.length ? `${node.name}<${node.args.map(flat).join(', ')}>` : node.name;
    case 'literal':
      return node.text;
  }
}

/** A union or intersection inside another, or as an array's element, in brackets. */
const grouped = (node: TypeNode) => (node.kind === 'union' || node.kind === 'intersection' ? `(${flat(node)})` : flat(node));

const memberHead = (m: Member, indent: string) => `${indent}${m.comment ? `${m.comment} ` : ''}${m.key}${m.optional ? '?' : ''}: `;

const flatMember = (m: Member) => `${memberHead(m, '')}${flat(m.type)}`;

/** A member of an interface or of a broken object type, at `indent`. */
export const memberLines = (m: Member, indent: string): string[] => typeLines(m.type, memberHead(m, indent), indent, ';');

/** Keywords a union may hold beside one object and still break only the object. */
const HUGGED_BESIDE = new Set(['null', 'undefined', 'void']);

/** Whether the union breaks inside its one object (an object beside `null` or `undefined`), not between its members. */
export const hugsObject = (union: Extract<TypeNode, { kind: 'union' }>) =>
  union.items.filter((item) => item.kind === 'object').length === 1 &&
  union.items.every((item) => item.kind === 'object' || (item.kind === 'reference' && HUGGED_BESIDE.has(item.name)));

/**
 * `head`, the type and `end`, the type's lines starting at `indent`: on one line if they fit, otherwise
 * broken by the type's kind. `head` may be indentation alone: a union then starts its bars there.
 */
export function typeLines(node: TypeNode, head: string, indent: string, end: string): string[] {
  const line = `${head}${flat(node)}${end}`;
  if (fits(line)) return [line];
  const inner = `${indent}  `;
  switch (node.kind) {
    case 'object':
      if (node.members.length === 0) return [line];
      return objectLines(node, head, indent, end);
    case 'array': {
      let base: TypeNode = node;
      let brackets = '';
      while (base.kind === 'array') {
        brackets += '[]';
        base = base.of;
      }
      if (base.kind === 'union') return [`${head}(`, ...unionItems(base, inner, ''), `${indent})${brackets}${end}`];
      if (base.kind === 'intersection') return [line];
      return typeLines(base, head, indent, `${brackets}${end}`);
    }
    case 'union': {
      if (hugsObject(node)) {
        const at = node.items.findIndex((item) => item.kind === 'object');
        const before = node.items.slice(0, at).map(grouped);
        const after = node.items.slice(at + 1).map(grouped);
        return objectLines(node.items[at] as ObjectNode, `${head}${before.map((text) => `${text} | `).join('')}`, indent, `${after.map((text) => ` | ${text}`).join('')}${end}`);
      }
      // After a key or `=`, the bars go one level in; with indentation alone for a head, they start there.
      if (head.trim() === '') return unionItems(node, head, end);
      return [head.trimEnd(), ...unionItems(node, inner, end)];
    }
    case 'intersection': {
      const last = node.items.at(-1)!;
      if (last.kind !== 'object') return [line];
      const before = node.items.slice(0, -1).map((item) => `${grouped(item)} & `).join('');
      return objectLines(last, `${head}${before}`, indent, end);
    }
    case 'tuple':
      if (node.items.length === 0) return [line];
      return [`${head}[`, ...node.items.flatMap((item) => typeLines(item, inner, inner, ',')), `${indent}]${end}`];
    case 'reference':
      if (node.args.length === 0) return [line];
      return [`${head}${node.name}<`, ...node.args.flatMap((arg, i) => typeLines(arg, inner, inner, i < node.args.length - 1 ? ',' : '')), `${indent}>${end}`];
    case 'indexed':
    case 'literal':
      return [line];
  }
}

/** A union's members a line each at `indent`, after their bars, the last followed by `end`. */
function unionItems(node: Extract<TypeNode, { kind: 'union' }>, indent: string, end: string): string[] {
  return node.items.flatMap((item, i) => typeLines(item, `${indent}| `, `${indent}  `, i === node.items.length - 1 ? end : ''));
}

/** An object type broken after `head`: its members a line each, one level in from `indent`, then `}` and `end`. */
function objectLines(object: ObjectNode, head: string, indent: string, end: string): string[] {
  return [`${head}{`, ...object.members.flatMap((m) => memberLines(m, `${indent}  `)), `${indent}}${end}`];
}
