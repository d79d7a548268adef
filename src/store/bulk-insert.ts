/**
 * Multi-row INSERTs on the hot paths (events, deliveries, usage records). Kysely builds and compiles every
 * query anew, which for hundreds of rows costs more than running it. The SQL of a multi-row insert depends
 * only on the store, the table and the number of rows, so it is compiled once for each and run again with
 * the rows' values (every row has the same columns in the same order). Rows go in chunks that stay well
 * under the bound parameters SQLite and PostgreSQL take in one statement.
 */
import { CompiledQuery, type Insertable } from 'kysely';
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
  const statements: CompiledQuery[] = [];
  for (const chunk of chunks(rows as readonly Record<string, unknown>[])) {
    const shape = `${storeKind(db)}:${table}:${chunk.length}`;
    let text = compiled.get(shape);
    if (text === undefined) compiled.set(shape, (text = db.insertInto(table).values(chunk as never).compile().sql));
    const columns = Object.keys(chunk[0]!);
    statements.push(CompiledQuery.raw(text, chunk.flatMap((row) => columns.map((column) => row[column]))));
  }
  return statements;
}

export async function insertRows<T extends keyof Database & string>(db: Db, table: T, rows: readonly Insertable<Database[T]>[]): Promise<void> {
  for (const statement of insertStatements(db, table, rows)) await db.executeQuery(statement);
}
