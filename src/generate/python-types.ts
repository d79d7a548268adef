/**
 * JSON Schema → Python, for the subset face files use (as schema-to-type.ts does for TypeScript): result and event
 * data schemas become pydantic models (an object with properties is a class, any other schema a type alias),
 * payload schemas the types of keyword arguments. A type the subset cannot say becomes `Any` rather than a wrong
 * type. Models are printed after the schemas they use, so no forward reference is left to resolve.
 */
import { isObject } from '../spec/json-schema.js';
import type { JsonSchema } from '../spec/model.js';
import { docstring, pyString, pythonName } from './python-names.js';

/** Attributes of pydantic's `BaseModel` (1.10 and 2.x) and of the package's own, which a field must not shadow. */
const MODEL_MEMBERS = new Set([
  'construct', 'copy', 'dict', 'fields', 'from_orm', 'json', 'parse_file', 'parse_obj', 'parse_raw', 'schema', 'schema_json',
  'to_dict', 'update_forward_refs', 'validate',
  // Names the annotations of a class body use: a field of that name would hide them from the fields after it.
  'Any', 'Dict', 'Field', 'List', 'Literal', 'Optional', 'Tuple', 'Union', 'bool', 'float', 'int', 'str',
]);

/** How one module's models are printed: named schemas by their class or alias name, and the text so far. */
export class ModelPrinter {
  /** The printed classes and aliases, in the order Python must read them. */
  readonly blocks: string[] = [];
  readonly #printed = new Set<string>();
  readonly #printing = new Set<string>();
  /** The schema each inline class was printed from: two schemas must not share one class. */
  readonly #inline = new Map<string, string>();

  /**
   * @param named the named schemas in reach (a face's), by the name a `$ref` ends with
   * @param nameOf the Python name of a named schema
   */
  constructor(
    private readonly named: Record<string, JsonSchema>,
    private readonly nameOf: (name: string) => string,
  ) {}

  /** Prints the named schema `name` (and what it uses) unless printed; returns its Python name. */
  namedSchema(name: string): string {
    const pyName = this.nameOf(name);
    if (this.#printed.has(pyName)) return pyName;
    if (this.#printing.has(pyName)) throw new Error(`Schema ${name} refers to itself; the Python models cannot say that yet.`);
    const schema = this.named[name];
    if (!schema) return 'Any';
    this.#printing.add(pyName);
    this.declare(pyName, schema, []);
    this.#printing.delete(pyName);
    this.#printed.add(pyName);
    return pyName;
  }

  /** Prints `schema` as class or alias `pyName`, with `docs` (and the schema's description) as its docstring. */
  declare(pyName: string, schema: JsonSchema, docs: string[]): void {
    const described = [...docs, ...(typeof schema.description === 'string' ? [schema.description] : [])];
    const object = objectShape(schema, this.named);
    if (object) {
      this.blocks.push(this.#classText(pyName, object, described));
      return;
    }
    const comment = described.length ? described.join(' ').split(/\r\n|\r|\n/).map((line) => `# ${line}`.trimEnd()) : [];
    this.blocks.push([...comment, `${pyName} = ${this.typeOf(schema, pyName)}`].join('\n'));
  }

  /** The annotation of a value of `schema`; an inline object becomes a class named from `hint`. */
  typeOf(schema: unknown, hint: string): string {
    if (schema === true || schema === undefined || !isObject(schema)) return 'Any';
    if (typeof schema.$ref === 'string') return this.namedSchema(schema.$ref.split('/').pop()!);
    if ('const' in schema) return literal([schema.const]);
    if (Array.isArray(schema.enum)) return literal(schema.enum);
    if (Array.isArray(schema.allOf)) {
      if (schema.allOf.length === 1 && !schema.properties) return this.typeOf(schema.allOf[0], hint);
      const object = objectShape(schema, this.named);
      return object ? this.#inlineClass(hint, schema) : 'Any';
    }
    const union = (schema.oneOf ?? schema.anyOf) as unknown[] | undefined;
    if (Array.isArray(union)) return unionOf(union.map((member, i) => this.typeOf(member, `${hint}${i + 1}`)));
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : [];
    if (types.length === 0) return schema.properties ? this.#inlineClass(hint, schema) : 'Any';
    return unionOf(types.map((type) => this.#single(type, schema, hint)));
  }

  #single(type: string, schema: JsonSchema, hint: string): string {
    const scalar = SCALARS[type];
    if (scalar) return scalar;
    if (type === 'array') {
      if (Array.isArray(schema.prefixItems)) return `Tuple[${schema.prefixItems.map((s, i) => this.typeOf(s, `${hint}${i + 1}`)).join(', ')}]`;
      return `List[${this.typeOf(schema.items, `${hint}Item`)}]`;
    }
    if (type !== 'object') return 'Any';
    if (isObject(schema.properties) && Object.keys(schema.properties).length > 0) return this.#inlineClass(hint, schema);
    return `Dict[str, ${isObject(schema.additionalProperties) ? this.typeOf(schema.additionalProperties, `${hint}Value`) : 'Any'}]`;
  }

  #inlineClass(pyName: string, schema: JsonSchema): string {
    const text = JSON.stringify(schema);
    const before = this.#inline.get(pyName);
    if ((before === undefined && this.#printed.has(pyName)) || (before !== undefined && before !== text)) throw new Error(`Two schemas would both be the Python model ${pyName}.`);
    this.#inline.set(pyName, text);
    if (!this.#printed.has(pyName)) {
      this.#printed.add(pyName);
      this.declare(pyName, schema, []);
    }
    return pyName;
  }

  #classText(pyName: string, object: ObjectShape, docs: string[]): string {
    const taken = new Set(MODEL_MEMBERS);
    const fields: string[] = [];
    for (const [wire, property] of object.properties) {
      const name = pythonName(wire, taken);
      taken.add(name);
      const p = isObject(property) ? property : {};
      const type = this.typeOf(p, `${pyName}${pascal(wire)}`);
      const required = object.required.has(wire);
      const annotation = required ? type : optional(type);
      const alias = name === wire ? undefined : `alias=${pyString(wire)}`;
      const value = required ? (alias ? ` = Field(${alias})` : '') : alias ? ` = Field(None, ${alias})` : ' = None';
      fields.push(`    ${name}: ${annotation}${value}`);
      if (typeof p.description === 'string' && p.description.trim()) fields.push(...docstring(p.description, '    '));
    }
    const head = docs.length ? docstring(docs.join('\n\n'), '    ') : [];
    const body = [...head, ...(head.length && fields.length ? [''] : []), ...fields];
    return [`class ${pyName}(BaseModel):`, ...(body.length ? body : ['    pass'])].join('\n');
  }
}

interface ObjectShape {
  properties: [string, unknown][];
  required: Set<string>;
}

/**
 * The properties of an object schema (its own, and those of the objects an `allOf` joins), or undefined for
 * any other schema.
 */
export function objectShape(schema: JsonSchema, named: Record<string, JsonSchema>, depth = 0): ObjectShape | undefined {
  if (depth > 8) return undefined;
  const resolve = (s: unknown): JsonSchema | undefined =>
    isObject(s) && typeof s.$ref === 'string' ? named[s.$ref.split('/').pop()!] : isObject(s) ? s : undefined;
  const parts: JsonSchema[] = [];
  if (Array.isArray(schema.allOf)) {
    for (const member of schema.allOf) {
      const resolved = resolve(member);
      const shape = resolved && objectShape(resolved, named, depth + 1);
      if (!shape) return undefined;
      parts.push({ properties: Object.fromEntries(shape.properties), required: [...shape.required] });
    }
  } else if (schema.oneOf || schema.anyOf || schema.$ref || schema.enum || 'const' in schema) {
    return undefined;
  }
  const own = isObject(schema.properties) ? schema.properties : undefined;
  if (!own && parts.length === 0) return undefined;
  if (own && Object.keys(own).length === 0 && parts.length === 0) return undefined;
  if (schema.type !== undefined && schema.type !== 'object') return undefined;
  parts.push({ properties: own ?? {}, required: Array.isArray(schema.required) ? schema.required : [] });
  const properties = new Map<string, unknown>();
  const required = new Set<string>();
  for (const part of parts) {
    for (const [name, property] of Object.entries(part.properties as Record<string, unknown>)) properties.set(name, property);
    for (const name of part.required as string[]) required.add(name);
  }
  return { properties: [...properties], required };
}

/** The Python type of each scalar JSON Schema type. */
export const SCALARS: Record<string, string | undefined> = { string: 'str', integer: 'int', number: 'float', boolean: 'bool', null: 'None' };

/** `Literal[...]` of JSON values; a `null` among them makes it `Optional`. */
export function literal(values: unknown[]): string {
  const plain = values.filter((v) => v !== null);
  const kinds = plain.every((v) => typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isInteger(v)));
  const type = !kinds || plain.length === 0 ? (plain.length ? 'Any' : 'None') : `Literal[${plain.map(pyValue).join(', ')}]`;
  return values.includes(null) && plain.length ? optional(type) : type;
}

/** A JSON scalar as a Python literal. */
export function pyValue(value: unknown): string {
  if (value === null) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'string') return pyString(value);
  return String(value);
}

/** One type of several, each once; `None` among them makes it `Optional`. */
export function unionOf(types: string[]): string {
  const distinct = [...new Set(types)];
  if (distinct.includes('Any')) return 'Any';
  const some = distinct.filter((t) => t !== 'None');
  const joined = some.length === 0 ? 'None' : some.length === 1 ? some[0]! : `Union[${some.join(', ')}]`;
  return distinct.includes('None') && some.length ? optional(joined) : joined;
}

/** `Optional[type]`, unless `type` already admits `None`. */
export function optional(type: string): string {
  return type === 'Any' || type === 'None' || type.startsWith('Optional[') ? type : `Optional[${type}]`;
}

/** `createdAt` → `CreatedAt`, `last4` → `Last4`, for the names of inline classes. */
export const pascal = (name: string) => name.replace(/(^|[^A-Za-z0-9]+)([A-Za-z0-9])/g, (_m, _sep, c: string) => c.toUpperCase());
