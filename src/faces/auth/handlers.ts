/**
 * The `auth` face: end users of an entity with scrypt password hashes and opaque session tokens that are
 * stored hashed. A failed login costs the same scrypt work whether or not the user exists, and gives the
 * same error, so neither the answer nor its timing reveals who has an account. A bulk import hashes first
 * (reporting progress) and only then writes, so the store is held only for the writes. Admins list, disable,
 * enable and delete users: disabling ends the user's sessions in the same transaction, and a disabled user's
 * right password answers `user_disabled` rather than opening a session, also when the disable ran while the
 * password was being checked (the session opens only if the user is still enabled, see `openSession`).
 * Logins of an address with too many recent failures are refused (src/faces/auth/login-throttle.ts).
 */
import type { AuthHandlers, AuthUser } from '../../../generated/server/types.js';
import type { Partition } from '../../store/partition.js';
import { deleteUser, deleteUserSessions, endSession, endUserSessions, findOpenSession, findUser, findUserByEmail, insertUser, insertUsers, listUsers, openSession, setUserDisabled, takenEmails } from './store.js';
import { failedLogin, refuseThrottledLogin } from './login-throttle.js';
import { BulkHasher } from '../../providers/bulk-hashing.js';
import { ApiError } from '../../core/errors.js';
import { listPage } from '../../core/list-page.js';
import { DECOY_PASSWORD_HASH, hashPassword, newId, randomBase62, sha256, verifyPassword } from '../../store/secrets.js';
import type { Db } from '../../store/schema.js';
import type { AuthUserTable } from './tables.js';

const partition = (ctx: { mode: 'live' | 'test'; entityId: string }) => ({ mode: ctx.mode, entityId: ctx.entityId });
/** Every import of this process hashes through one gate, which keeps threads free for logins and signups. */
const bulkHashing = new BulkHasher();
const normalizeEmail = (email: string) => email.trim().toLowerCase();

function toUser(row: Pick<AuthUserTable, 'id' | 'email' | 'name' | 'created_at' | 'disabled_at'>): AuthUser {
  return {
    id: row.id,
    email: row.email,
    ...(row.name ? { name: row.name } : {}),
    createdAt: row.created_at,
    ...(row.disabled_at ? { disabledAt: row.disabled_at } : {}),
  };
}

async function existingUser(db: Db, p: Partition, id: string): Promise<AuthUserTable> {
  const row = await findUser(db, p, id);
  if (!row) throw new ApiError('resource_not_found', `No user ${id}.`, { param: '/payload/id' });
  return row;
}

export interface AuthOptions {
  /** The clock (ms since the epoch) of sessions, disables and the login throttle; tests pin it. */
  now?: () => number;
}

/** The face's handlers on a clock; `auth` is the one on the real clock. */
export function authHandlers(options: AuthOptions = {}): AuthHandlers {
  const clock = options.now ?? Date.now;
  const nowIso = () => new Date(clock()).toISOString();
  return {
    async signup(payload, ctx) {
      const row: AuthUserTable = {
        id: newId('usr'),
        mode: ctx.mode,
        entity_id: ctx.entityId,
        email: normalizeEmail(payload.email),
        name: payload.name ?? null,
        password_hash: await hashPassword(payload.password),
        created_at: nowIso(),
        disabled_at: null,
      };
      if (!(await insertUser(ctx.db, row))) throw new ApiError('email_taken', undefined, { param: '/payload/email' });
      const user = toUser(row);
      ctx.emit('auth.signup.succeeded', { user });
      return { user };
    },

    async import(payload, ctx) {
      const emails = payload.users.map((u) => normalizeEmail(u.email));
      const repeated = emails.findIndex((email, i) => emails.indexOf(email) !== i);
      if (repeated >= 0) {
        throw new ApiError('email_taken', `${emails[repeated]} appears twice in the import.`, { param: `/payload/users/${repeated}/email` });
      }
      const hashes = await bulkHashing.hashAll(
        payload.users.map((u) => u.password),
        ctx.signal,
        (done) => ctx.stream.progress(done, payload.users.length, 'Hashing passwords'),
      );
      // Only now does the call touch the store (and begin its transaction), so the hashing held nothing.
      const taken = new Set(await takenEmails(ctx.db, partition(ctx), emails));
      const first = emails.findIndex((email) => taken.has(email));
      if (first >= 0) throw new ApiError('email_taken', `${emails[first]} already has an account.`, { param: `/payload/users/${first}/email` });
      const createdAt = nowIso();
      const rows = payload.users.map((u, i): AuthUserTable => ({
        id: newId('usr'),
        mode: ctx.mode,
        entity_id: ctx.entityId,
        email: emails[i]!,
        name: u.name ?? null,
        password_hash: hashes[i]!,
        created_at: createdAt,
        disabled_at: null,
      }));
      // A concurrent signup can still take an address between the check and the insert; the unique index decides.
      if (!(await insertUsers(ctx.db, rows))) throw new ApiError('email_taken', 'An address of the import was taken while it ran; nothing was imported.');
      ctx.reportUnits({ users: rows.length });
      ctx.emit('auth.import.succeeded', { count: rows.length, userIds: rows.map((r) => r.id) });
      return { users: rows.map(toUser) };
    },

    async login(payload, ctx) {
      const email = normalizeEmail(payload.email);
      await refuseThrottledLogin(ctx.db, partition(ctx), email, clock());
      const user = await findUserByEmail(ctx.db, partition(ctx), email);
      const valid = await verifyPassword(payload.password, user?.password_hash ?? (await DECOY_PASSWORD_HASH));
      if (!user || !valid) throw await failedLogin(ctx.db, partition(ctx), email, clock());
      // Failures of other logins may have filled the window while this password was checked.
      await refuseThrottledLogin(ctx.db, partition(ctx), email, clock());
      // Only the right password learns that the user is disabled, so this reveals nothing to anyone else.
      if (user.disabled_at) throw new ApiError('user_disabled');
      const token = `sess_${randomBase62(40)}`;
      const now = new Date(clock());
      const expiresAt = new Date(now.getTime() + payload.ttlSeconds * 1000).toISOString();
      const session = {
        id: newId('ses'),
        mode: ctx.mode,
        entity_id: ctx.entityId,
        user_id: user.id,
        token_hash: sha256(token),
        created_at: now.toISOString(),
        expires_at: expiresAt,
        ended_at: null,
      };
      // The user may have been disabled (or deleted) while its password was checked: then no session opens.
      if (!(await openSession(ctx.db, session))) {
        throw new ApiError((await findUser(ctx.db, partition(ctx), user.id)) ? 'user_disabled' : 'invalid_credentials');
      }
      ctx.emit('auth.login.succeeded', { user: toUser(user), expiresAt });
      return { token, expiresAt, user: toUser(user) };
    },

    async logout(payload, ctx) {
      return { loggedOut: await endSession(ctx.db, partition(ctx), sha256(payload.token), nowIso()) };
    },

    async session(payload, ctx) {
      const found = await findOpenSession(ctx.db, partition(ctx), sha256(payload.token), nowIso());
      if (!found) throw new ApiError('session_invalid', undefined, { param: '/payload/token' });
      return { user: toUser(found), expiresAt: found.expiresAt };
    },

    async listUsers(payload, ctx) {
      const limit = payload.limit ?? 20;
      const filter = {
        ...(payload.email !== undefined ? { email: normalizeEmail(payload.email) } : {}),
        ...(payload.disabled !== undefined ? { disabled: payload.disabled } : {}),
        ...(payload.startingAfter ? { startingAfter: payload.startingAfter } : {}),
      };
      return listPage(await listUsers(ctx.db, partition(ctx), limit, filter), limit, toUser);
    },

    async disableUser(payload, ctx) {
      const now = nowIso();
      const changed = await setUserDisabled(ctx.db, partition(ctx), payload.id, now);
      const user = toUser(await existingUser(ctx.db, partition(ctx), payload.id));
      // Also when it was disabled already: a repeated disable leaves no session open, whatever came before.
      await endUserSessions(ctx.db, partition(ctx), payload.id, now);
      if (changed) ctx.emit('auth.user.disabled', { user });
      return { user };
    },

    async enableUser(payload, ctx) {
      const changed = await setUserDisabled(ctx.db, partition(ctx), payload.id, null);
      const user = toUser(await existingUser(ctx.db, partition(ctx), payload.id));
      if (changed) ctx.emit('auth.user.enabled', { user });
      return { user };
    },

    async deleteUser(payload, ctx) {
      const user = toUser(await existingUser(ctx.db, partition(ctx), payload.id));
      await deleteUserSessions(ctx.db, partition(ctx), payload.id);
      // Another call may have deleted it since it was read: then it is as unknown as any other id.
      if (!(await deleteUser(ctx.db, partition(ctx), payload.id))) throw new ApiError('resource_not_found', `No user ${payload.id}.`, { param: '/payload/id' });
      ctx.emit('auth.user.deleted', { user });
      return { id: payload.id, deleted: true };
    },
  };
}

export const handlers: AuthHandlers = authHandlers();
