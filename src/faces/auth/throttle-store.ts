/**
 * The failed logins the `auth` face counts per e-mail address of a partition (src/faces/auth/login-throttle.ts
 * decides with them). A failure is recorded in the row taken by `holdLoginFailures`, which on PostgreSQL
 * locks it until the caller's transaction ends: logins of one address that fail at once are judged one after
 * another, each seeing the failures before it, as they are on SQLite, where one transaction writes at a time.
 */
import { storeKind } from '../../store/open.js';
import type { Partition } from '../../store/partition.js';
import type { Db } from '../../store/schema.js';

const parse = (failures: string | undefined): string[] => (failures ? (JSON.parse(failures) as string[]) : []);

/** The recorded failures of an address (ISO times, oldest first), as committed. */
export async function loginFailures(db: Db, p: Partition, email: string): Promise<string[]> {
  const row = await db
    .selectFrom('auth_login_throttle')
    .select('failures')
    .where('mode', '=', p.mode)
    .where('entity_id', '=', p.entityId)
    .where('email', '=', email)
    .executeTakeFirst();
  return parse(row?.failures);
}

/** Takes the address's row into the caller's transaction (making it, empty, when there is none) and answers its failures. */
export async function holdLoginFailures(db: Db, p: Partition, email: string, now: string): Promise<string[]> {
  const row = await db
    .insertInto('auth_login_throttle')
    .values({ mode: p.mode, entity_id: p.entityId, email, failures: '[]', last_failed_at: now })
    // Changing nothing, it still takes the row (and its lock) and answers it as it stands.
    .onConflict((oc) => oc.columns(['mode', 'entity_id', 'email']).doUpdateSet((eb) => ({ email: eb.ref('excluded.email') })))
    .returning('failures')
    .executeTakeFirstOrThrow();
  return parse(row.failures);
}

/** Replaces the failures of an address held by `holdLoginFailures`; `failures` is not empty. */
export async function saveLoginFailures(db: Db, p: Partition, email: string, failures: string[]): Promise<void> {
  await db
    .updateTable('auth_login_throttle')
    .set({ failures: JSON.stringify(failures), last_failed_at: failures.at(-1)! })
    .where('mode', '=', p.mode)
    .where('entity_id', '=', p.entityId)
    .where('email', '=', email)
    .execute();
}

/**
 * Deletes up to `limit` rows whose newest failure is before `before` (they count for nothing any more). On
 * PostgreSQL rows another transaction holds are skipped, so two sweeps never wait for each other.
 */
export async function sweepLoginFailures(db: Db, before: string, limit = 100): Promise<void> {
  await db
    .deleteFrom('auth_login_throttle')
    .where((eb) =>
      eb(
        eb.refTuple('mode', 'entity_id', 'email'),
        'in',
        eb
          .selectFrom('auth_login_throttle')
          .select(['mode', 'entity_id', 'email'])
          .where('last_failed_at', '<', before)
          .limit(limit)
          .$if(storeKind(db) === 'postgres', (q) => q.forUpdate().skipLocked())
          .$asTuple('mode', 'entity_id', 'email'),
      ),
    )
    .execute();
}
