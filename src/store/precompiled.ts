/**
 * Statements of the hot path compiled once. Kysely builds and compiles every query anew, which on a call's
 * path costs more than running it: a statement whose shape never changes is built once per store kind
 * with named placeholders, and each use only fills in its values. The query stays written with the typed
 * builder; only the SQL text and the order of its parameters are kept.
 */
import type { Compilable, CompiledQuery, RootOperationNode } from 'kysely';
import { storeKind } from './open.js';
import type { Db } from './schema.js';

/** Stands for the value named `name` while the statement is compiled, typed as the column it fills. */
export type Placeholder = <T = string>(name: string) => T;

interface Template {
  sql: string;
  query: RootOperationNode;
  /** Each parameter, in order: the name of the value that fills it, or a constant the builder wrote. */
  slots: readonly ({ name: string } | { value: unknown })[];
}

const MARK = '\u0000placeholder:';
const templates = new Map<string, Template>();

/**
 * A statement compiled once per store kind and `shape` (a name unique to the statement, with whatever
 * varies its text, such as a number of rows), filled with `values` by name.
 */
export function precompiled(db: Db, shape: string, build: (db: Db, p: Placeholder) => Compilable, values: object): CompiledQuery {
  const key = `${storeKind(db)}:${shape}`;
  let template = templates.get(key);
  if (!template) templates.set(key, (template = compileTemplate(db, build)));
  const parameters = template.slots.map((slot) => {
    if (!('name' in slot)) return slot.value;
    const value = (values as Record<string, unknown>)[slot.name];
    if (value === undefined) throw new Error(`The statement ${shape} needs a value for ${slot.name}.`);
    return value;
  });
  return { sql: template.sql, query: template.query, parameters, queryId: { queryId: shape } };
}

function compileTemplate(db: Db, build: (db: Db, p: Placeholder) => Compilable): Template {
  const compiled = build(db, <T>(name: string) => `${MARK}${name}` as T).compile();
  const slots = compiled.parameters.map((parameter) =>
    typeof parameter === 'string' && parameter.startsWith(MARK) ? { name: parameter.slice(MARK.length) } : { value: parameter },
  );
  return { sql: compiled.sql, query: compiled.query, slots };
}
