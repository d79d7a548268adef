/**
 * Multi-row INSERTs on the hot paths (events, deliveries, usage records and their rollups). Kysely builds and
 * compiles every query anew, which for hundreds of rows costs more than running it. The SQL of a multi-row
 * insert depends only on the store, the statement, the number of rows and their columns, so it is compiled
 * once for each and run again with the rows' values (every row of a statement has the same columns in the
 * same order). Rows go in chunks that stay well under the bound parameters SQLite and PostgreSQL take in
 * one statement.
 */
import { CompiledQuery, type Compilable, type Insertable } from 'kysely';
import { storeKind } from './open.js';
import type { Database, Db } from './schema.js';

/** Rows per statement: 500 rows of up to 30 columns stay well under the bound parameters of both stores. */
const ROWS_PER_INSERT = 500;
const compiled = new Map<string, string>();

/** `rows` in runs of at most one statement's worth. */
export function* chunks<T>(rows: readonly T[]): Generator<T[]> {
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) yield rows.slice(i, i + ROWS_PER_INSERT);
}

/** The compiled INSERT statements (one per chunk of rows) that write `rows` into `table`. */
export function insertStatements<T extends keyof Database & string>(db: Db, table: T, rows: readonly Insertable<Database[T]>[]): CompiledQuery[] {
  return multiRowStatements(db, table, rows as readonly Record<string, unknown>[], (chunk) => db.insertInto(table).values(chunk as never));
}

/**
 * The statements (one per chunk of rows) that `build` makes of `rows`, compiled once per store kind, `name`,
 * number of rows and columns. `build` must take the rows' values as its only parameters, in row order.
 */
export function multiRowStatements(db: Db, name: string, rows: readonly Record<string, unknown>[], build: (chunk: Record<string, unknown>[]) => Compilable): CompiledQuery[] {
  const statements: CompiledQuery[] = [];
  for (const chunk of chunks(rows)) {
    const columns = Object.keys(chunk[0]!);
    const parameters = new Array<unknown>(chunk.length * columns.length);
    let i = 0;
    for (const row of chunk) for (const column of columns) parameters[i++] = row[column];
    statements.push(CompiledQuery.raw(statementText(db, name, chunk.length, columns, parameters.length, () => build(chunk)), parameters));
  }
  return statements;
}

/**
 * As multiRowStatements, for rows given as arrays of their values in the order of `columns`, which cost less to
 * make than objects of as many properties: `build` gets them as objects, only when the SQL is not yet known.
 */
export function valueRowStatements(db: Db, name: string, columns: readonly string[], rows: readonly (readonly unknown[])[], build: (chunk: Record<string, unknown>[]) => Compilable): CompiledQuery[] {
  const statements: CompiledQuery[] = [];
  for (const chunk of chunks(rows)) {
    // A row of other than one value a column would shift every value after it.
    if (chunk.some((values) => values.length !== columns.length)) throw new Error(`The statement ${name} has a row of other than ${columns.length} values.`);
    const parameters = chunk.flat();
    const asObjects = () => chunk.map((values) => Object.fromEntries(columns.map((column, i) => [column, values[i]])));
    statements.push(CompiledQuery.raw(statementText(db, name, chunk.length, columns, parameters.length, () => build(asObjects())), parameters));
  }
  return statements;
}

/** The SQL of statement `name` for `rows` rows of `columns`: compiled the first time, known after. */
function statementText(db: Db, name: string, rows: number, columns: readonly string[], parameters: number, build: () => Compilable): string {
  const shape = `${storeKind(db)}:${name}:${rows}:${columns.join(',')}`;
  let text = compiled.get(shape);
  if (text === undefined) {
    const query = build().compile();
    if (query.parameters.length !== parameters) throw new Error(`The statement ${name} takes parameters other than its rows' values.`);
    compiled.set(shape, (text = query.sql));
  }
  return text;
}

export async function insertRows<T extends keyof Database & string>(db: Db, table: T, rows: readonly Insertable<Database[T]>[]): Promise<void> {
  for (const statement of insertStatements(db, table, rows)) await db.executeQuery(statement);
}
