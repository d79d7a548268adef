/**
 * Prepared statements kept per connection. Kysely prepares every query anew, and on SQLite preparing
 * (parsing and planning the SQL) costs more than running the statement; the SQL of a call comes from a few
 * dozen query shapes, so the same text always gets the same statement. The oldest is dropped when full.
 */
import type SQLite from 'better-sqlite3';

const STATEMENT_CACHE_SIZE = 500;

export class StatementCache {
  readonly #db: SQLite.Database;
  readonly #statements = new Map<string, SQLite.Statement>();

  constructor(db: SQLite.Database) {
    this.#db = db;
  }

  prepare(sql: string): SQLite.Statement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#db.prepare(sql);
      if (this.#statements.size >= STATEMENT_CACHE_SIZE) this.#statements.delete(this.#statements.keys().next().value!);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  close(): void {
    this.#db.close();
  }
}
