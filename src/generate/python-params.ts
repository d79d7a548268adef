/**
 * `generated/python/unified_dispatch/params.py`: the nested objects of the payloads as `TypedDict`s with the wire's
 * keys, the types of the methods' keyword arguments that take an object (`tiers=[{"upTo": 1000, ...}]`), so a type
 * checker refuses a misspelt or missing key. Only the standard library's `typing` is used (Python 3.10 has no
 * `NotRequired`): an object with required and optional keys is a total base and a `total=False` class over it, and a
 * key that is not a Python identifier (`from`) is written in the functional form.
 */
import { isObject } from '../spec/json-schema.js';
import type { JsonSchema } from '../spec/model.js';
import { docstring, isKeyword, pyString } from './python-names.js';
import { literal, objectShape, pascal, SCALARS, unionOf } from './python-types.js';

/** A key the class syntax can declare: an identifier that is not a keyword. */
const classKey = (key: string) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) && !isKeyword(key);

/** Where a payload's schemas are read: its named schemas, and the prefix of their Python names (the face's). */
export interface ParamScope {
  named: Record<string, JsonSchema>;
  prefix: string;
}

/** The `TypedDict`s of every payload, printed once each, in the order Python must read them. */
export class ParamPrinter {
  readonly blocks: string[] = [];
  /** Each printed name's schema: two schemas must not share one name. */
  readonly #printed = new Map<string, string>();
  readonly #printing = new Set<string>();

  /**
   * The annotation of an argument of `schema`; an object with properties becomes a `TypedDict` named from `hint`
   * (a named schema from its name). `used` collects the `TypedDict`s it names, for the caller's imports.
   */
  typeOf(schema: unknown, hint: string, scope: ParamScope, used: Set<string>, depth = 0): string {
    if (!isObject(schema) || depth > 8) return 'Any';
    const next = (s: unknown, h: string) => this.typeOf(s, h, scope, used, depth + 1);
    if (typeof schema.$ref === 'string') {
      const name = schema.$ref.split('/').pop()!;
      const target = scope.named[name];
      return target && objectShape(target, scope.named) ? this.#typedDict(`${scope.prefix}${name}Param`, target, scope, used) : next(target, `${scope.prefix}${name}`);
    }
    if ('const' in schema) return literal([schema.const]);
    if (Array.isArray(schema.enum)) return literal(schema.enum);
    if (Array.isArray(schema.allOf)) {
      if (schema.allOf.length === 1 && !schema.properties) return next(schema.allOf[0], hint);
      return objectShape(schema, scope.named) ? this.#typedDict(`${hint}Param`, schema, scope, used) : 'Mapping[str, Any]';
    }
    const union = (schema.oneOf ?? schema.anyOf) as unknown[] | undefined;
    if (Array.isArray(union)) return unionOf(union.map((member, i) => next(member, `${hint}${i + 1}`)));
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : [];
    if (types.length === 0 && !schema.properties) return 'Any';
    return unionOf(
      (types.length ? types : ['object']).map((type) => {
        if (SCALARS[type]) return SCALARS[type];
        if (type === 'array') return `List[${next(schema.items, `${hint}Item`)}]`;
        if (type !== 'object') return 'Any';
        if (objectShape(schema, scope.named)) return this.#typedDict(`${hint}Param`, schema, scope, used);
        return isObject(schema.additionalProperties) ? `Mapping[str, ${next(schema.additionalProperties, `${hint}Value`)}]` : 'Mapping[str, Any]';
      }),
    );
  }

  /** Prints the `TypedDict` `name` of an object schema unless printed; an object that holds itself stays a mapping. */
  #typedDict(name: string, schema: JsonSchema, scope: ParamScope, used: Set<string>): string {
    if (this.#printing.has(name)) return 'Mapping[str, Any]';
    const text = JSON.stringify(schema);
    const before = this.#printed.get(name);
    if (before !== undefined && before !== text) throw new Error(`Two payload schemas would both be the Python TypedDict ${name}.`);
    used.add(name);
    if (before !== undefined) return name;
    this.#printing.add(name);
    const shape = objectShape(schema, scope.named)!;
    const keys = shape.properties.map(([wire, property]) => {
      const p = isObject(property) ? property : {};
      const type = this.typeOf(p, `${name.replace(/Param$/, '')}${pascal(wire)}`, scope, new Set(), 1);
      return { wire, type, required: shape.required.has(wire), description: typeof p.description === 'string' ? p.description : undefined };
    });
    this.#printing.delete(name);
    this.#printed.set(name, text);
    this.blocks.push(typedDictText(name, keys, typeof schema.description === 'string' ? schema.description : undefined));
    return name;
  }
}

interface Key {
  wire: string;
  type: string;
  required: boolean;
  description?: string;
}

/** The declaration of one `TypedDict`: one part if its keys are all required or all optional, else two. */
function typedDictText(name: string, keys: Key[], description: string | undefined): string {
  const required = keys.filter((k) => k.required);
  const optional = keys.filter((k) => !k.required);
  if (required.length === 0 || optional.length === 0) return part(name, keys, ['TypedDict'], required.length > 0, description);
  const base = `_${name}Required`;
  if (optional.every((k) => classKey(k.wire))) return [part(base, required, ['TypedDict'], true), part(name, optional, [base], false, description)].join('\n\n\n');
  const rest = `_${name}Optional`;
  return [part(base, required, ['TypedDict'], true), part(rest, optional, ['TypedDict'], false), part(name, [], [base, rest], true, description)].join('\n\n\n');
}

/** A `TypedDict` in the class syntax, or in the functional one when a key is not an identifier (it has no bases then). */
function part(name: string, keys: Key[], bases: string[], total: boolean, description?: string): string {
  if (keys.every((k) => classKey(k.wire))) {
    const docs = description?.trim() ? docstring(description, '    ') : [];
    const fields = keys.flatMap((k) => [`    ${k.wire}: ${k.type}`, ...(k.description?.trim() ? docstring(k.description, '    ') : [])]);
    const body = [...docs, ...(docs.length && fields.length ? [''] : []), ...fields];
    return [`class ${name}(${bases.join(', ')}${total ? '' : ', total=False'}):`, ...(body.length ? body : ['    pass'])].join('\n');
  }
  const comment = description?.trim() ? description.trim().split(/\r\n|\r|\n/).map((line) => `# ${line}`.trimEnd()) : [];
  const entries = keys.map((k) => `    ${pyString(k.wire)}: ${k.type},`);
  return [...comment, `${name} = TypedDict(`, `    ${pyString(name)},`, '    {', ...entries.map((e) => `    ${e}`), '    },', ...(total ? [] : ['    total=False,']), ')'].join('\n');
}
