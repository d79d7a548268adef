/**
 * Result serializers compiled from result schemas write what JSON.stringify writes, byte for byte, or decline
 * (undefined) so that JSON.stringify writes it: for every shipped action's examples, those examples with their
 * fields in another order, with a field left undefined, with a field the schema does not name and with a value
 * of another type; and, for schemas made here, for unions, nullable fields, named and recursive schemas, open
 * parts, arrays with holes, numbers JSON writes as null, text that needs escaping, and objects that are not
 * plain (a class's, a Date, one with a toJSON).
 */
import { describe, expect, it } from 'vitest';
import { faces } from '../../generated/server/dispatch.js';
import { hasActionResultSerializer } from '../../src/generate/emit-pipelines.js';
import { hasResultSerializer, ResultSerializers, SERIALIZER_HELPERS } from '../../src/generate/result-serializer.js';
import { generatedModule, loadAll } from '../../src/server/generated-module.js';
import { resultSerializerOf, type ResultSerializer } from '../../src/server/result-serializer.js';
import { buildCatalog } from '../../src/spec/index.js';
import type { JsonSchema } from '../../src/spec/model.js';

/** What the server writes for `value` with `serialize`: its text, or JSON.stringify's where it declines. */
const written = (serialize: ResultSerializer, value: unknown) => serialize(value) ?? JSON.stringify(value);

/** `source` (exports and all) with the helpers' module before it, as one function body returning `returned`. */
const moduleBody = (source: string, returned: string) => `${SERIALIZER_HELPERS}\n${source}`.replace(/export const/g, 'const') + `\nreturn ${returned};`;

/** A schema's serializer, compiled as the generator writes it into a face's module. */
function compile(schema: JsonSchema): ResultSerializer {
  const serializers = new ResultSerializers();
  if (!serializers.add('serialize', schema)) throw new Error('open at its top');
  return new Function(moduleBody(serializers.source(), 'serialize'))() as ResultSerializer;
}

/** The value with every object's fields in reverse order. */
function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reversed(v)]));
  return value;
}

describe('the shipped actions’ serializers', async () => {
  const { catalog } = buildCatalog(new URL('../../faces', import.meta.url).pathname);
  const actions = catalog!.faces.flatMap((face) => face.actions.map((action) => ({ action, entry: faces.get(face.name)!.actions.get(action.name)! })));
  await loadAll(actions.map(({ entry }) => entry.checks.module));

  it('every action with a result schema closed at its top has one, loaded with its face’s module', () => {
    for (const { action, entry } of actions) {
      expect(entry.result !== undefined, entry.id).toBe(hasActionResultSerializer(action));
      if (entry.result) expect(resultSerializerOf(entry), entry.id).toBe(generatedModule(entry.result.module).get(entry.result.name));
    }
    // Most are: only results whose top is a named schema left open (a key's, an endpoint's records) are not.
    expect(actions.filter(({ entry }) => entry.result).length).toBeGreaterThan(actions.length * 0.8);
  });

  const compiled = actions.filter(({ entry }) => entry.result);
  it.each(compiled.map(({ action, entry }) => [action.id, action, entry] as const))('%s: its examples, reordered and varied, as JSON.stringify writes them', (_id, action, entry) => {
    const serialize = resultSerializerOf(entry)!;
    for (const { result } of action.examples) {
      // An example is what the schema describes: written by the compiled code itself.
      expect(serialize(result)).toBe(JSON.stringify(result));
      expect(written(serialize, reversed(result))).toBe(JSON.stringify(reversed(result)));
      if (result && typeof result === 'object' && !Array.isArray(result)) {
        const [first] = Object.keys(result);
        for (const varied of [
          { ...result, [first!]: undefined },
          { ...result, notInTheSchema: 1 },
          { ...result, [first!]: new Date(0) },
          { ...result, [first!]: { toJSON: (key: string) => `key ${key}` } },
        ]) {
          expect(written(serialize, varied)).toBe(JSON.stringify(varied));
        }
        expect(serialize({ ...result, notInTheSchema: 1 })).toBeUndefined();
      }
    }
  });
});

describe('compiled serializers', () => {
  const item = { type: 'object', additionalProperties: false, properties: { id: { type: 'string' }, n: { type: ['integer', 'null'] }, on: { type: 'boolean' } } };
  const list = compile({ type: 'object', additionalProperties: false, properties: { items: { type: 'array', items: item }, more: { type: 'boolean' } } });

  it('writes objects in their own order, leaving out what JSON.stringify leaves out', () => {
    const values = [
      { items: [{ id: 'a', n: 1, on: true }, { on: false, n: null, id: 'b' }], more: false },
      { more: true, items: [] },
      { items: [{ id: 'a', n: undefined, skip: undefined, f: () => 1 }].map(({ skip: _s, f: _f, ...rest }) => rest) },
      { items: [{ id: 'x', n: -0 }, { id: 'y', n: Number.NaN }, { id: 'z', n: Number.POSITIVE_INFINITY }, { id: 'w', n: 1e21 }] },
      { items: [{ id: 'say "hi"\n\t\\', n: 2 }, { id: '😀 é \u2028', n: 3 }, { id: '\ud800 lone', n: 4 }, { id: '\u0000\u001f', n: 5 }] },
    ];
    for (const value of values) expect(list(value)).toBe(JSON.stringify(value));
  });

  it('writes holes and unwritable items of an array as null, as JSON.stringify does', () => {
    const numbers = compile({ type: 'object', additionalProperties: false, properties: { v: { type: 'array', items: { type: 'number' } } } });
    // eslint-disable-next-line no-sparse-arrays
    const holes = { v: [1, , 3] };
    expect(numbers(holes)).toBe(JSON.stringify(holes));
    const unwritable = { v: [1, undefined, () => 2, Symbol('s')] };
    expect(numbers(unwritable)).toBe(JSON.stringify(unwritable));
  });

  it('declines what it was not made for, so JSON.stringify writes it', () => {
    class Item {
      id = 'a';
    }
    const declined = [
      { items: [new Item()] },
      { items: [{ id: 1 }] },
      { items: [{ id: 'a', extra: 1 }] },
      { items: [{ id: new Date(0) }] },
      { items: { length: 1, 0: { id: 'a' } } },
      { items: [{ id: 'a', toJSON: () => 'x' }] },
      Object.assign([], { items: [] }),
      'text',
      null,
    ];
    for (const value of declined) {
      expect(list(value)).toBeUndefined();
      expect(written(list, value)).toBe(JSON.stringify(value));
    }
    const own = Object.assign(Object.create(null) as object, { more: true });
    expect(list(own)).toBe(JSON.stringify(own));
  });

  it('declines values JSON.stringify treats apart however they were made', () => {
    const withToJSON = Object.assign(() => 1, { toJSON: (key: string) => `called for ${key}` });
    const swappedArray = Object.setPrototypeOf([], Object.prototype) as object;
    const boxed = Object.setPrototypeOf(new Boolean(true), null) as object;
    for (const value of [
      { items: [{ id: 'a', n: 1, on: withToJSON }] },
      { items: [withToJSON] },
      { more: withToJSON },
      { items: [{ id: 'a', n: 1, on: swappedArray }] },
      { items: swappedArray },
      { items: [boxed] },
      { items: [{ id: Object.setPrototypeOf(new String('s'), Object.prototype) }] },
    ]) {
      expect(list(value)).toBeUndefined();
      expect(written(list, value)).toBe(JSON.stringify(value));
    }
    const anything = compile({ type: 'object', additionalProperties: false, properties: { v: {} } });
    expect(anything({ v: 10n })).toBeUndefined();
    expect(anything({ v: [withToJSON] })).toBe(JSON.stringify({ v: [withToJSON] }));
  });

  it('writes own keys only, as JSON.stringify does', () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto.more = true;
    try {
      const value = { items: [] };
      expect(written(list, value)).toBe(JSON.stringify(value));
      expect(JSON.stringify(value)).toBe('{"items":[]}');
    } finally {
      delete proto.more;
    }
  });

  it('makes no function that calls one left undefined, for a union naming a schema that names it back', () => {
    const serialize = compile({
      type: 'object',
      additionalProperties: false,
      properties: { node: { $ref: '#/$defs/Node' }, leaf: { $ref: '#/$defs/Leaf' } },
      $defs: {
        // Its array branch names no items: the union is left open, settled before its object branch is made.
        Node: { type: ['object', 'array'], additionalProperties: false, properties: { child: { $ref: '#/$defs/Leaf' } } },
        Leaf: { type: 'object', additionalProperties: false, properties: { parent: { $ref: '#/$defs/Node' } } },
      },
    });
    for (const value of [{ leaf: { parent: {} } }, { node: { child: { parent: [1] } } }, { leaf: { parent: { child: {} } } }]) {
      expect(written(serialize, value)).toBe(JSON.stringify(value));
    }
  });

  it('follows named and recursive schemas, unions, and leaves open parts to JSON.stringify', () => {
    const tree = compile({
      $ref: '#/$defs/Node',
      $defs: {
        Node: {
          type: 'object',
          additionalProperties: false,
          properties: { name: { type: 'string' }, meta: { type: 'object' }, pick: { oneOf: [{ type: 'string' }, { type: 'number' }] }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } },
        },
      },
    });
    const value = { name: 'root', meta: { any: ['thing', { at: new Date(0) }] }, pick: 3, children: [{ name: 'leaf', children: [], pick: 'x' }] };
    expect(tree(value)).toBe(JSON.stringify(value));
    // An open part with a toJSON of its own would be called with another key alone: declined.
    expect(tree({ name: 'r', meta: new Date(0) })).toBeUndefined();
    const union = compile({ type: 'object', additionalProperties: false, properties: { v: { type: ['string', 'object', 'null'], additionalProperties: false, properties: { a: { type: 'number' } } } } });
    for (const v of ['s', null, { a: 1 }]) expect(union({ v })).toBe(JSON.stringify({ v }));
    expect(union({ v: 1 })).toBeUndefined();
  });

  it('shares the function of a schema that two results name alike, and only of one that is the same', () => {
    const serializers = new ResultSerializers();
    const record = (id: JsonSchema, note: JsonSchema) => ({
      $ref: '#/$defs/Record',
      $defs: { Record: { type: 'object', additionalProperties: false, properties: { id, note: { $ref: '#/$defs/Note' } } }, Note: note },
    });
    serializers.add('a', record({ type: 'string' }, { type: 'string' }));
    serializers.add('b', record({ type: 'string' }, { type: 'string' }));
    // The same name, another schema: and one whose only difference is in a schema it names in turn.
    serializers.add('c', record({ type: 'number' }, { type: 'string' }));
    serializers.add('d', record({ type: 'string' }, { type: 'number' }));
    const source = serializers.source();
    const exported = Object.fromEntries([...source.matchAll(/export const (\w) = (\w+);/g)].map(([, name, fn]) => [name, fn]));
    expect(exported.a).toBe(exported.b);
    expect(new Set([exported.a, exported.c, exported.d]).size).toBe(3);
    const made = new Function(moduleBody(source, '{ a, c, d }'))() as Record<string, ResultSerializer>;
    expect([made.a!({ id: 'x', note: 'n' }), made.c!({ id: 1, note: 'n' }), made.d!({ id: 'x', note: 2 })]).toEqual(['{"id":"x","note":"n"}', '{"id":1,"note":"n"}', '{"id":"x","note":2}']);
    expect([made.a!({ id: 1 }), made.d!({ id: 'x', note: 'n' })]).toEqual([undefined, undefined]);
  });

  it('makes one function for schemas of one shape, named or not, and keeps apart those that differ', () => {
    const serializers = new ResultSerializers();
    const list = (item: JsonSchema) => ({ type: 'object', additionalProperties: false, properties: { items: { type: 'array', items: item }, hasMore: { type: 'boolean' } } });
    const entry = (idType: string) => ({ type: 'object', additionalProperties: false, properties: { id: { type: idType } } });
    serializers.add('a', list(entry('string')));
    serializers.add('b', { $ref: '#/$defs/Page', $defs: { Page: list(entry('string')) } });
    serializers.add('c', list(entry('number')));
    const source = serializers.source();
    const exported = Object.fromEntries([...source.matchAll(/export const (\w) = (\w+);/g)].map(([, name, fn]) => [name, fn]));
    expect(exported.a).toBe(exported.b);
    expect(exported.c).not.toBe(exported.a);
    // The entry, its array and the list of each: three functions for a and b, three more for c.
    expect(source.match(/^function /gm)).toHaveLength(6);
    const made = new Function(moduleBody(source, '{ b, c }'))() as Record<string, ResultSerializer>;
    expect([made.b!({ items: [{ id: 'x' }], hasMore: false }), made.c!({ items: [{ id: 1 }] })]).toEqual(['{"items":[{"id":"x"}],"hasMore":false}', '{"items":[{"id":1}]}']);
    expect(made.c!({ items: [{ id: 'x' }] })).toBeUndefined();
  });

  it('makes none for a result open at its top', () => {
    expect(hasResultSerializer({ type: 'object' })).toBe(false);
    expect(hasResultSerializer({ oneOf: [{ type: 'string' }] })).toBe(false);
    expect(hasResultSerializer({})).toBe(false);
    expect(hasResultSerializer({ $ref: '#/$defs/Open', $defs: { Open: { type: 'object' } } })).toBe(false);
  });
});
