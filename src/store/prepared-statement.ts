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
 * the pool as it is after an error of the statement's own (a duplicate key, say), and dropped only when it
 * was lost. A handle derived from the store's (`withPlugin`, say) has no pool of its own: it runs the
 * statement unprepared.
 */
export async function runPrepared<Row>(db: Db, name: string, text: string, values: unknown[]): Promise<{ rows: Row[] }> {
  const pool = postgresPool(db);
  if (!pool) return db.executeQuery<Row>(CompiledQuery.raw(text, values));
  const client = await pool.connect();
  let lost: Error | undefined;
  try {
    return await client.query<Row & object>({ name, text, values });
  } catch (error) {
    if (isStoreUnavailable(error)) lost = error as Error;
    throw error;
  } finally {
    client.release(lost);
  }
}
