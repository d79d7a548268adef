/**
 * Compiled statements written as one transaction of their own, apart from any call's: on the embedded store
 * one message to its writer thread, elsewhere one transaction on a connection of the pool. For writes that
 * trail their calls (usage records), which no call may wait for and whose failure must fail no call.
 */
import type { CompiledQuery } from 'kysely';
import { embeddedStore } from './open.js';
import type { Db } from './schema.js';

export async function writeTogether(db: Db, statements: readonly CompiledQuery[]): Promise<void> {
  const embedded = embeddedStore(db);
  if (embedded) return embedded.writeBatch(statements.map((query) => ({ query })));
  await db.transaction().execute(async (trx) => {
    for (const statement of statements) await trx.executeQuery(statement);
  });
}
