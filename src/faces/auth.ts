/**
 * The `auth` face: end users of an entity with scrypt password hashes and opaque session tokens that are
 * stored hashed. A failed login costs the same scrypt work whether or not the user exists, and gives the
 * same error, so neither the answer nor its timing reveals who has an account.
 */
import type { AuthHandlers, AuthUser } from '../../generated/server/types.js';
import { endSession, findOpenSession, findUserByEmail, insertSession, insertUser } from '../store/auth.js';
import { ApiError } from '../runtime/errors.js';
import { DECOY_PASSWORD_HASH, hashPassword, newId, randomBase62, sha256, verifyPassword } from '../runtime/secrets.js';
import type { AuthUserTable } from '../store/schema.js';

const partition = (ctx: { mode: 'live' | 'test'; entityId: string }) => ({ mode: ctx.mode, entityId: ctx.entityId });
const normalizeEmail = (email: string) => email.trim().toLowerCase();

function toUser(row: Pick<AuthUserTable, 'id' | 'email' | 'name' | 'created_at'>): AuthUser {
  return { id: row.id, email: row.email, ...(row.name ? { name: row.name } : {}), createdAt: row.created_at };
}

export const auth: AuthHandlers = {
  async signup(payload, ctx) {
    const row: AuthUserTable = {
      id: newId('usr'),
      mode: ctx.mode,
      entity_id: ctx.entityId,
      email: normalizeEmail(payload.email),
      name: payload.name ?? null,
      password_hash: await hashPassword(payload.password),
      created_at: new Date().toISOString(),
    };
    if (!(await insertUser(ctx.db, row))) throw new ApiError('email_taken', undefined, { param: '/payload/email' });
    return { user: toUser(row) };
  },

  async login(payload, ctx) {
    const user = await findUserByEmail(ctx.db, partition(ctx), normalizeEmail(payload.email));
    const valid = await verifyPassword(payload.password, user?.password_hash ?? (await DECOY_PASSWORD_HASH));
    if (!user || !valid) throw new ApiError('invalid_credentials');
    const token = `sess_${randomBase62(40)}`;
    const now = new Date();
    const expiresAt = new Date(now.getTime() + payload.ttlSeconds * 1000).toISOString();
    await insertSession(ctx.db, {
      id: newId('ses'),
      mode: ctx.mode,
      entity_id: ctx.entityId,
      user_id: user.id,
      token_hash: sha256(token),
      created_at: now.toISOString(),
      expires_at: expiresAt,
      ended_at: null,
    });
    return { token, expiresAt, user: toUser(user) };
  },

  async logout(payload, ctx) {
    return { loggedOut: await endSession(ctx.db, partition(ctx), sha256(payload.token), new Date().toISOString()) };
  },

  async session(payload, ctx) {
    const found = await findOpenSession(ctx.db, partition(ctx), sha256(payload.token), new Date().toISOString());
    if (!found) throw new ApiError('session_invalid', undefined, { param: '/payload/token' });
    return { user: toUser(found), expiresAt: found.expiresAt };
  },
};
