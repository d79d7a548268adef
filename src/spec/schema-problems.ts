/**
 * What ajv finds wrong, in plain words, one sentence per place: in a schema a face file writes (checked
 * against the JSON Schema meta-schema) and in a value checked against a schema (an example's payload or
 * result). ajv says a mistyped `type` three times (not one of the type names, "must be array", "must match a
 * schema in anyOf": one error for each form `type` may take, and one for the choice), a keyword checked by
 * several vocabularies once for each, and a value that fits no branch of a `oneOf` once per branch: here each
 * place is said once, a type name with the one it most likely meant.
 */
import type { ErrorObject } from 'ajv';
import { pointerKeys } from './json-schema.js';
import { suggestion } from './suggest.js';

/** A mistake: where (a JSON pointer into the schema or value) and what, as a sentence. */
export interface SchemaProblem {
  pointer: string;
  detail: string;
  /** It is about the key at `pointer` (one not allowed, or the object missing one), not its value. */
  key?: boolean;
}

export const JSON_SCHEMA_TYPES = ['array', 'boolean', 'integer', 'null', 'number', 'object', 'string'] as const;

const UNION_KEYWORDS = new Set(['anyOf', 'oneOf']);

/** `errors` from ajv's `validateSchema` with `verbose` (each carries the value it is about, as `data`). */
export function schemaProblems(errors: readonly ErrorObject[]): SchemaProblem[] {
  return collapse(errors, (error) => plain(error, shown('', error.instancePath)), (choice, inside) => {
    // `type` names a type or lists them, and says which of its own words is wrong.
    if (/(^|\/)type$/.test(choice.instancePath)) return typeProblem(choice.instancePath, choice.data);
    return fitsNone(choice, shown('', choice.instancePath), inside.map((e) => plain(e, shown('', e.instancePath)).detail));
  });
}

/** `errors` of `value`, named `name` in the sentences (`result.count must be integer`), against its schema. */
export function valueProblems(errors: readonly ErrorObject[], name: string, value: unknown): SchemaProblem[] {
  const said = (error: ErrorObject) => plain(error, shown(name, error.instancePath), valueAt(value, error.instancePath));
  return collapse(errors, said, (choice, inside) => fitsNone(choice, shown(name, choice.instancePath), inside.map((e) => said(e).detail)));
}

/**
 * The errors that say something of their own: the place a choice of forms (`anyOf`, `oneOf`) failed at
 * stands for every error at or under it (`inside`), each of which only says one form did not fit.
 */
export function foldChoices(errors: readonly ErrorObject[]): { error: ErrorObject; inside?: ErrorObject[] }[] {
  const choices = errors.filter((e) => UNION_KEYWORDS.has(e.keyword));
  const under = (e: ErrorObject, choice: ErrorObject) => e.instancePath === choice.instancePath || e.instancePath.startsWith(`${choice.instancePath}/`);
  return errors.flatMap((error) => {
    const choice = choices.find((c) => under(error, c));
    if (choice && choice !== error) return [];
    return [choice ? { error, inside: errors.filter((e) => e !== choice && under(e, choice)) } : { error }];
  });
}

/** One problem per place (see foldChoices); an error said twice in the same words is said once. */
function collapse(
  errors: readonly ErrorObject[],
  one: (error: ErrorObject) => SchemaProblem,
  choiceOf: (choice: ErrorObject, inside: readonly ErrorObject[]) => SchemaProblem,
): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  for (const { error, inside } of foldChoices(errors)) {
    const problem = inside ? choiceOf(error, inside) : one(error);
    if (!problems.some((p) => p.pointer === problem.pointer && p.detail === problem.detail)) problems.push(problem);
  }
  return problems;
}

function fitsNone(choice: ErrorObject, place: string, said: readonly string[]): SchemaProblem {
  // Each branch's sentence starts with the place; the choice says it once.
  const forms = [...new Set(said.map((s) => (s.startsWith(`${place} `) ? s.slice(place.length + 1) : s).replace(/\.$/, '')))];
  return { pointer: choice.instancePath, detail: forms.length ? `${place} fits none of its forms: it ${forms.join('; or it ')}.` : `${place} ${choice.message}.` };
}

function typeProblem(pointer: string, value: unknown): SchemaProblem {
  const names: readonly string[] = JSON_SCHEMA_TYPES;
  const notAType = (written: string, at: string): SchemaProblem => {
    const hint = suggestion(written, names);
    return { pointer: at, detail: `"${written}" is not a JSON Schema type.${hint || ` The types are ${listed(names)}.`}` };
  };
  if (typeof value === 'string') return notAType(value, pointer);
  if (Array.isArray(value)) {
    if (value.length === 0) return { pointer, detail: `"type" lists no type: give one of ${listed(names)}, or a list of them.` };
    const wrong = value.findIndex((v) => typeof v !== 'string' || !names.includes(v));
    if (wrong >= 0) return notAType(String(value[wrong]), `${pointer}/${wrong}`);
    const twice = value.find((v, i) => value.indexOf(v) !== i);
    return { pointer, detail: `"type" lists "${String(twice)}" more than once.` };
  }
  return { pointer, detail: `"type" is a type name (${listed(names)}) or a list of them, not ${JSON.stringify(value)}.` };
}

/** One error in plain words: `place` is where it is, as the sentence names it; `data` the value there. */
function plain(error: ErrorObject, place: string, data: unknown = error.data): SchemaProblem {
  const pointer = error.instancePath;
  const params = error.params as { type?: unknown; missingProperty?: string; additionalProperty?: string; allowedValues?: unknown[]; allowedValue?: unknown };
  switch (error.keyword) {
    case 'type':
      if (Array.isArray(params.type) && params.type.includes('object') && params.type.includes('boolean')) {
        return { pointer, detail: `${place} is a schema (an object), true or false, not ${JSON.stringify(data)}.` };
      }
      break;
    case 'required':
      return { pointer, detail: `${place} has no "${params.missingProperty}", which its schema requires.`, key: true };
    case 'additionalProperties':
      return { pointer: `${pointer}/${escape(params.additionalProperty!)}`, detail: `${place} has "${params.additionalProperty}", which its schema does not allow.`, key: true };
    case 'enum': {
      const allowed = params.allowedValues!.map((v) => JSON.stringify(v));
      const hint = typeof data === 'string' ? suggestion(data, params.allowedValues!.filter((v): v is string => typeof v === 'string')) : '';
      return { pointer, detail: `${place} is one of ${allowed.join(', ')}, not ${JSON.stringify(data)}.${hint}` };
    }
    case 'const':
      return { pointer, detail: `${place} is ${JSON.stringify(params.allowedValue)}, not ${JSON.stringify(data)}.` };
  }
  return { pointer, detail: `${place} ${error.message ?? 'is invalid'}.` };
}

/** A JSON pointer as the keys it names after `name`: `result.count`, `properties.message.type`; `(root)` for nothing at all. */
function shown(name: string, pointer: string): string {
  const keys = [...(name ? [name] : []), ...pointerKeys(pointer)];
  return keys.length ? keys.join('.') : '(root)';
}

const escape = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

function valueAt(value: unknown, pointer: string): unknown {
  return pointerKeys(pointer).reduce<unknown>((node, key) => (node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined), value);
}

function listed(names: readonly string[]): string {
  return `${names.slice(0, -1).join(', ')} and ${names.at(-1)!}`;
}
