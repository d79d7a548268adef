/**
 * Compiled statements written as one transaction of their own, apart from any call's: on the embedded store
 * one message to the usage file's writer thread (sqlite/usage-file.ts), elsewhere one transaction on a
 * connection of the pool. For the writes of usage records and their rollups, which trail their calls, and of
 * the event log's order: no call may wait for them and their failure must fail no call. They write only the
 * usage file's tables.
 */
import type { CompiledQuery } from 'kysely';
import { embeddedStore } from './open.js';
import type { Db } from './schema.js';

export async function writeUsage(db: Db, statements: readonly CompiledQuery[]): Promise<void> {
  const embedded = embeddedStore(db);
  if (embedded) return embedded.writeUsageBatch(statements.map((query) => ({ query })));
  await db.transaction().execute(async (trx) => {
    for (const statement of statements) await trx.executeQuery(statement);
  });
}
