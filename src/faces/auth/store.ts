/**
 * End users and sessions of the `auth` face, always within one (mode, entity) partition. A session is open
 * only while it is neither ended nor expired and its user is enabled.
 */
import { sql } from 'kysely';
import type { Partition } from '../../store/partition.js';
import { storeKind } from '../../store/open.js';
import type { Db } from '../../store/schema.js';
import type { AuthSessionTable, AuthUserTable } from './tables.js';

export async function findUserByEmail(db: Db, p: Partition, email: string): Promise<AuthUserTable | undefined> {
  return db
    .selectFrom('auth_users')
    .selectAll()
    .where('mode', '=', p.mode)
    .where('entity_id', '=', p.entityId)
    .where('email', '=', email)
    .executeTakeFirst();
}

export async function findUser(db: Db, p: Partition, id: string): Promise<AuthUserTable | undefined> {
  return db.selectFrom('auth_users').selectAll().where('mode', '=', p.mode).where('entity_id', '=', p.entityId).where('id', '=', id).executeTakeFirst();
}

/** Newest first (ids sort by creation), one more than `limit` to tell whether a page follows. */
export async function listUsers(
  db: Db,
  p: Partition,
  limit: number,
  filter: { email?: string; disabled?: boolean; startingAfter?: string },
): Promise<AuthUserTable[]> {
  let query = db.selectFrom('auth_users').selectAll().where('mode', '=', p.mode).where('entity_id', '=', p.entityId);
  if (filter.email !== undefined) query = query.where('email', '=', filter.email);
  if (filter.disabled !== undefined) query = query.where('disabled_at', filter.disabled ? 'is not' : 'is', null);
  if (filter.startingAfter) query = query.where('id', '<', filter.startingAfter);
  return query.orderBy('id', 'desc').limit(limit + 1).execute();
}

/** Sets or clears a user's `disabled_at`; false when the user was already so (or does not exist). */
export async function setUserDisabled(db: Db, p: Partition, id: string, disabledAt: string | null): Promise<boolean> {
  const result = await db
    .updateTable('auth_users')
    .set({ disabled_at: disabledAt })
    .where('mode', '=', p.mode)
    .where('entity_id', '=', p.entityId)
    .where('id', '=', id)
    .where('disabled_at', disabledAt === null ? 'is not' : 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Deletes a user (after its sessions: `deleteUserSessions`); false when it does not exist. */
export async function deleteUser(db: Db, p: Partition, id: string): Promise<boolean> {
  const result = await db.deleteFrom('auth_users').where('mode', '=', p.mode).where('entity_id', '=', p.entityId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
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

/**
 * Opens a session if its user is still enabled, in one statement: false when the user was disabled (or
 * deleted) since the caller read it. On PostgreSQL the user's row is held (FOR SHARE) until the caller's
 * transaction ends, so a disable running meanwhile waits for it and then ends this session too; on SQLite
 * the two transactions run one after the other anyway. A session never outlives a disable that ran while it
 * was opened.
 */
export async function openSession(db: Db, session: AuthSessionTable): Promise<boolean> {
  const result = await db
    .insertInto('auth_sessions')
    .columns(['id', 'mode', 'entity_id', 'user_id', 'token_hash', 'created_at', 'expires_at', 'ended_at'])
    .expression((eb) =>
      eb
        .selectFrom('auth_users')
        .select([
          eb.val(session.id).as('id'),
          eb.val(session.mode).as('mode'),
          eb.val(session.entity_id).as('entity_id'),
          'auth_users.id as user_id',
          eb.val(session.token_hash).as('token_hash'),
          eb.val(session.created_at).as('created_at'),
          eb.val(session.expires_at).as('expires_at'),
          sql<null>`null`.as('ended_at'),
        ])
        .where('auth_users.mode', '=', session.mode)
        .where('auth_users.entity_id', '=', session.entity_id)
        .where('auth_users.id', '=', session.user_id)
        .where('auth_users.disabled_at', 'is', null)
        .$if(storeKind(db) === 'postgres', (q) => q.forShare()),
    )
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
}

/** The open session with this token hash, and its user. */
export async function findOpenSession(db: Db, p: Partition, tokenHash: string, now: string) {
  return db
    .selectFrom('auth_sessions as s')
    .innerJoin('auth_users as u', 'u.id', 's.user_id')
    .select(['s.id as sessionId', 's.expires_at as expiresAt', 'u.id', 'u.email', 'u.name', 'u.created_at', 'u.disabled_at'])
    .where('s.mode', '=', p.mode)
    .where('s.entity_id', '=', p.entityId)
    .where('s.token_hash', '=', tokenHash)
    .where('s.ended_at', 'is', null)
    .where('s.expires_at', '>', now)
    // Disabling ends the user's sessions and no login opens one for a disabled user; this refuses any other.
    .where('u.disabled_at', 'is', null)
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

/** Ends every open session of a user at `now`. */
export async function endUserSessions(db: Db, p: Partition, userId: string, now: string): Promise<void> {
  await db
    .updateTable('auth_sessions')
    .set({ ended_at: now })
    .where('mode', '=', p.mode)
    .where('entity_id', '=', p.entityId)
    .where('user_id', '=', userId)
    .where('ended_at', 'is', null)
    .execute();
}

/** Deletes every session of a user, ended or not. */
export async function deleteUserSessions(db: Db, p: Partition, userId: string): Promise<void> {
  await db.deleteFrom('auth_sessions').where('mode', '=', p.mode).where('entity_id', '=', p.entityId).where('user_id', '=', userId).execute();
}
