/**
 * Statements of the hot path prepared on PostgreSQL. node-postgres sends a statement without a name as text
 * to parse and plan anew each time, which for the statements run on every group commit and usage flush cost
 * PostgreSQL more than running them. A named statement is parsed and planned once per connection; its text
 * must not depend on the number of rows (arrays per column, `unnest`), or every size would be a statement
 * of its own.
 */
import { CompiledQuery } from 'kysely';
import { postgresPool } from './open.js';
import type { Db } from './schema.js';
import { isStoreUnavailable } from './unavailable.js';

/**
 * Runs `text` as the statement `name`, prepared on the connection it runs on. A connection is given back to
 * the pool as it is after an error of the statement's own (a duplicate key, say), and dropped when it was
 * lost, or when it no longer holds the statement node-postgres prepared on it (a pooler between that hands
 * out another server connection, a `DEALLOCATE`): then the statement runs once more, unprepared, since
 * nothing of it ran. A handle derived from the store's (`withPlugin`, say) has no pool of its own: it runs
 * the statement unprepared.
 */
export async function runPrepared<Row>(db: Db, name: string, text: string, values: unknown[]): Promise<{ rows: Row[] }> {
  const pool = postgresPool(db);
  if (pool) {
    const client = await pool.connect();
    let dropped: Error | undefined;
    try {
      return await client.query<Row & object>({ name, text, values });
    } catch (error) {
      if (isStoreUnavailable(error) || lostStatement(error)) dropped = error as Error;
      if (!lostStatement(error)) throw error;
    } finally {
      client.release(dropped);
    }
  }
  return db.executeQuery<Row>(CompiledQuery.raw(text, values));
}

/** PostgreSQL's codes for a prepared statement it does not have (26000) or has already (42P05): neither ran it. */
const lostStatement = (error: unknown) => ['26000', '42P05'].includes((error as { code?: unknown }).code as string);
