/**
 * End users and sessions of the `auth` face, always within one (mode, entity) partition.
 */
import type { AuthSessionTable, AuthUserTable, Db, Mode } from './schema.js';

export interface Partition {
  mode: Mode;
  entityId: string;
}

export async function findUserByEmail(db: Db, p: Partition, email: string): Promise<AuthUserTable | undefined> {
  return db
    .selectFrom('auth_users')
    .selectAll()
    .where('mode', '=', p.mode)
    .where('entity_id', '=', p.entityId)
    .where('email', '=', email)
    .executeTakeFirst();
}

/** Inserts a user; false when the e-mail address is taken in this partition (the unique index decides). */
export async function insertUser(db: Db, user: AuthUserTable): Promise<boolean> {
  const result = await db
    .insertInto('auth_users')
    .values(user)
    .onConflict((oc) => oc.columns(['mode', 'entity_id', 'email']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
}

/** Inserts users all at once; false when any address was taken meanwhile (then none is kept by a transaction). */
export async function insertUsers(db: Db, users: AuthUserTable[]): Promise<boolean> {
  const result = await db
    .insertInto('auth_users')
    .values(users)
    .onConflict((oc) => oc.columns(['mode', 'entity_id', 'email']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === users.length;
}

/** Which of these (lower-cased) addresses already have a user in the partition. */
export async function takenEmails(db: Db, p: Partition, emails: string[]): Promise<string[]> {
  if (emails.length === 0) return [];
  const rows = await db
    .selectFrom('auth_users')
    .select('email')
    .where('mode', '=', p.mode)
    .where('entity_id', '=', p.entityId)
    .where('email', 'in', emails)
    .execute();
  return rows.map((r) => r.email);
}

export async function insertSession(db: Db, session: AuthSessionTable): Promise<void> {
  await db.insertInto('auth_sessions').values(session).execute();
}

/** The open session with this token hash, and its user. */
export async function findOpenSession(db: Db, p: Partition, tokenHash: string, now: string) {
  return db
    .selectFrom('auth_sessions as s')
    .innerJoin('auth_users as u', 'u.id', 's.user_id')
    .select(['s.id as sessionId', 's.expires_at as expiresAt', 'u.id', 'u.email', 'u.name', 'u.created_at'])
    .where('s.mode', '=', p.mode)
    .where('s.entity_id', '=', p.entityId)
    .where('s.token_hash', '=', tokenHash)
    .where('s.ended_at', 'is', null)
    .where('s.expires_at', '>', now)
    .executeTakeFirst();
}

/** Ends an open session; true when one was open. */
export async function endSession(db: Db, p: Partition, tokenHash: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('auth_sessions')
    .set({ ended_at: now })
    .where('mode', '=', p.mode)
    .where('entity_id', '=', p.entityId)
    .where('token_hash', '=', tokenHash)
    .where('ended_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
