/**
 * An action's result serializer, compiled from its result schema as fast-json-stringify compiles Fastify's
 * (generated/server/pipelines/<face>.js): each object's fields written by code made for their declared types,
 * strings that need no escaping quoted as they are. It answers the very text JSON.stringify gives the value, or
 * undefined for what it was not made for (a value of another type, a field the schema does not name, an object
 * that is not plain, which may have a toJSON), and the server then gives the value to JSON.stringify: an answer
 * is the same, byte for byte, whatever a handler returns. Parts the schema leaves open (no type, `oneOf`, an
 * object without `additionalProperties: false`) are JSON.stringify's inside the compiled code; a result that
 * is open at its top gets no serializer.
 */
import type { JsonSchema } from '../spec/model.js';

/** Where the helpers every serializer calls are written once, beside the faces' modules that import them. */
export const SERIALIZER_HELPERS_PATH = 'server/pipelines/serializer-helpers.js';

/** The module of the helpers (SERIALIZER_HELPERS_PATH). */
export const SERIALIZER_HELPERS = [
  'const json = JSON.stringify;',
  '/** Text JSON.stringify would escape: quotes, backslashes, control characters, surrogates (a lone one is escaped). */',
  'const ESCAPED = /["\\\\\\u0000-\\u001f\\ud800-\\udfff]/;',
  'export const str = (x) => (typeof x !== "string" ? undefined : ESCAPED.test(x) ? json(x) : `"${x}"`);',
  'export const num = (x) => (typeof x !== "number" ? undefined : Number.isFinite(x) ? `${x}` : "null");',
  'export const bool = (x) => (x === true ? "true" : x === false ? "false" : undefined);',
  '/** A value with a toJSON (a BigInt\'s may be its prototype\'s), which JSON.stringify\'s own walk calls with its key. */',
  'const withToJSON = (x) => (x !== null && (typeof x === "object" || typeof x === "function") && typeof x.toJSON === "function") || typeof x === "bigint";',
  '/** A value left open: JSON.stringify\'s. */',
  'export const open = (x) => (withToJSON(x) ? undefined : json(x));',
  '/** Its class\'s tag tells a boxed primitive or an array apart, whatever its prototype was made. */',
  'const tag = Object.prototype.toString;',
  '/** An object or array as literals make them, with no toJSON: JSON.stringify walks it as the compiled code does. */',
  'export const plainObject = (x) => { const p = Object.getPrototypeOf(x); return (p === Object.prototype || p === null) && typeof x.toJSON !== "function" && tag.call(x) === "[object Object]"; };',
  'export const plainArray = (x) => Object.getPrototypeOf(x) === Array.prototype && typeof x.toJSON !== "function";',
  '/** What JSON.stringify leaves out of an object, and writes as null in an array. */',
  'export const unwritable = (x) => x === undefined || typeof x === "symbol" || (typeof x === "function" && typeof x.toJSON !== "function");',
  '',
].join('\n');

/** The helpers compiled code calls, by name: those the helpers' module exports. */
const HELPERS = [...SERIALIZER_HELPERS.matchAll(/^export const (\w+)/gm)].map((match) => match[1]!);

const PRIMITIVES: Readonly<Record<string, string>> = { string: 'str', number: 'num', integer: 'num', boolean: 'bool' };

/** Which values each type of a union takes. */
const TYPE_TESTS: Readonly<Record<string, string>> = {
  string: 'typeof x === "string"',
  number: 'typeof x === "number"',
  integer: 'typeof x === "number"',
  boolean: 'typeof x === "boolean"',
  null: 'x === null',
  array: 'Array.isArray(x)',
  object: 'typeof x === "object" && x !== null && !Array.isArray(x)',
};

/**
 * The serializers of one module's actions. They share the function of a schema they name alike: a face's
 * records (an invoice, a subscription) are written by one function whichever action answers them.
 */
export class ResultSerializers {
  readonly #compiler = new Compiler();
  readonly #exports: string[] = [];

  /** Adds the serializer `name` of `schema`; false, adding nothing, when the schema is open at its top. */
  add(name: string, schema: JsonSchema): boolean {
    const top = this.#compiler.compile(schema);
    if (top === 'open') return false;
    this.#exports.push(`export const ${name} = ${top};`);
    return true;
  }

  /** The import of the helpers, from a face's module beside them (SERIALIZER_HELPERS_PATH); none when none was added. */
  imports(): string[] {
    return this.#exports.length === 0 ? [] : [`import { ${HELPERS.join(', ')} } from './${SERIALIZER_HELPERS_PATH.split('/').pop()}';`];
  }

  /** The functions and the exports; empty when none was added. */
  source(): string {
    if (this.#exports.length === 0) return '';
    return [...this.#compiler.functions.flatMap((f) => [f, '']), ...this.#exports, ''].join('\n');
  }
}

/** Whether a result schema gets a serializer: it is closed at its top. */
export const hasResultSerializer = (schema: JsonSchema): boolean => new ResultSerializers().add('serialize', schema);

class Compiler {
  readonly functions: string[] = [];
  /** The function of each named schema, by the text of it and of every schema it names in turn: made once. */
  readonly #named = new Map<string, string>();
  /** The result schema being compiled, whose `$defs` its references name. */
  #root: JsonSchema = {};
  #made = 0;
  /** Each function made, by its text with its name left out: a schema shaped like one made before shares its function. */
  readonly #byText = new Map<string, string>();
  /** Named schemas being made, and those of them a schema inside called by name: recursive ones. */
  readonly #making = new Set<string>();
  readonly #calledWhileMade = new Set<string>();

  /** The name of the function writing values of a result schema; 'open' for one left open at its top. */
  compile(schema: JsonSchema): string {
    this.#root = schema;
    return this.function(schema);
  }

  /** The name of a function writing values of `schema`: a helper's, or one made here. */
  function(schema: JsonSchema): string {
    const ref = schema.$ref;
    if (typeof ref === 'string') return this.#ref(ref);
    if (['oneOf', 'anyOf', 'allOf', 'not', 'if', 'patternProperties', 'prefixItems'].some((k) => k in schema)) return 'open';
    const types = typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? (schema.type as string[]) : [];
    if (types.length === 0) return 'open';
    if (types.length === 1 && PRIMITIVES[types[0]!]) return PRIMITIVES[types[0]!]!;
    if (types.length === 1 && types[0] === 'null') return 'open';
    // Settled before anything in it is made, so that no function made for a schema named along the way calls one
    // that ends up open (#ref).
    if (types.some((type) => type !== 'null' && !PRIMITIVES[type] && leftOpen(type, schema))) return 'open';
    if (types.length === 1) return this.#structure(types[0]!, schema);
    // A union of types: each value goes to the function of its own.
    const branches = types.map((type) => {
      const written = type === 'null' ? '"null"' : `${PRIMITIVES[type] ?? this.#structure(type, schema)}(x)`;
      return `if (${TYPE_TESTS[type]}) return ${written};`;
    });
    return this.#add((name) => [`function ${name}(x) {`, ...branches.map((b) => `  ${b}`), '  return undefined;', '}'].join('\n'));
  }

  /** The function of an array or object schema that is not left open. */
  #structure(type: string, schema: JsonSchema): string {
    return type === 'array' ? this.#array(this.function(schema.items as JsonSchema)) : this.#object(schema.properties as Record<string, JsonSchema>);
  }

  #array(item: string): string {
    return this.#add((name) =>
      [
        `function ${name}(x) {`,
        '  if (!Array.isArray(x) || !plainArray(x)) return undefined;',
        '  let out = "";',
        '  for (let i = 0; i < x.length; i++) {',
        '    const v = x[i];',
        `    const s = unwritable(v) ? "null" : ${item}(v);`,
        '    if (s === undefined) return undefined;',
        '    out = i === 0 ? s : `${out},${s}`;',
        '  }',
        '  return `[${out}]`;',
        '}',
      ].join('\n'),
    );
  }

  #object(properties: Record<string, JsonSchema>): string {
    const cases = Object.entries(properties).map(([key, schema]) => {
      const written = this.function(schema);
      return `      case ${JSON.stringify(key)}: s = ${written}(v); if (s === undefined) return undefined; s = ${JSON.stringify(`${JSON.stringify(key)}:`)} + s; break;`;
    });
    return this.#add((name) =>
      [
        `function ${name}(x) {`,
        '  if (typeof x !== "object" || x === null || !plainObject(x)) return undefined;',
        '  let out = "";',
        // In the object's own order, as JSON.stringify writes it: a handler's order is the answer's.
        '  for (const k in x) {',
        // An enumerable key of a prototype: JSON.stringify writes own keys only.
        '    if (!Object.hasOwn(x, k)) return undefined;',
        '    const v = x[k];',
        '    if (unwritable(v)) continue;',
        '    let s;',
        '    switch (k) {',
        ...cases,
        '      default: return undefined;',
        '    }',
        '    out = out === "" ? s : `${out},${s}`;',
        '  }',
        '  return `{${out}}`;',
        '}',
      ].join('\n'),
    );
  }

  #ref(ref: string): string {
    const defs = (this.#root.$defs ?? {}) as Record<string, JsonSchema>;
    const target = defName(ref) !== undefined ? defs[defName(ref)!] : undefined;
    if (!target) return 'open';
    const key = namedKey(ref, defs);
    const known = this.#named.get(key);
    if (known !== undefined) {
      if (this.#making.has(known)) this.#calledWhileMade.add(known);
      return known;
    }
    // Named before it is made: a recursive schema calls its function through that hoisted name, which then
    // stands for the function made. Any other schema is written by its function (or helper) itself. A schema
    // left open is found so before anything in it is made (function), so nothing can have called it by name.
    const name = `r${this.#named.size}`;
    this.#named.set(key, name);
    this.#making.add(name);
    const made = this.function(target);
    this.#making.delete(name);
    if (this.#calledWhileMade.has(name)) {
      this.functions.push(`function ${name}(x) {\n  return ${made}(x);\n}`);
      return name;
    }
    this.#named.set(key, made);
    return made;
  }

  /**
   * Adds a function made once the functions it calls are, or names the one made before with the same text: the
   * functions it calls are shared already, so two schemas of one shape end up with one function.
   */
  #add(make: (name: string) => string): string {
    const text = make('');
    const known = this.#byText.get(text);
    if (known !== undefined) return known;
    const name = `f${this.#made++}`;
    this.#byText.set(text, name);
    this.functions.push(make(name));
    return name;
  }
}

/** Whether values of `type` (not a primitive) are left open by the schema: JSON.stringify's. */
function leftOpen(type: string, schema: JsonSchema): boolean {
  if (type === 'array') return !schema.items || typeof schema.items !== 'object' || Array.isArray(schema.items);
  if (type === 'object') return schema.additionalProperties !== false || !schema.properties;
  return true;
}

/** The name a `#/$defs/<name>` reference gives; undefined for any other. */
const defName = (ref: string) => /^#\/\$defs\/([^/]+)$/.exec(ref)?.[1];

/**
 * What makes a named schema's function the same in two result schemas: its text and that of every schema
 * it names, in turn, in each one's `$defs`.
 */
function namedKey(ref: string, defs: Record<string, JsonSchema>): string {
  const texts = new Map<string, string>();
  const waiting = [defName(ref)!];
  while (waiting.length > 0) {
    const name = waiting.pop()!;
    if (texts.has(name)) continue;
    const text = JSON.stringify(defs[name] ?? null);
    texts.set(name, text);
    for (const [, named] of text.matchAll(/"#\/\$defs\/([^"/]+)"/g)) waiting.push(named!);
  }
  return JSON.stringify([ref, ...[...texts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]);
}
