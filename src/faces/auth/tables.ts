/**
 * The auth face's own tables: end users, their sessions and the recent failed logins per address, declared
 * into the store's `Database`, and their migrations. `0001_keys_and_auth` made them with the core's key table:
 * this is its auth part, run after the core's under the same name.
 */
import type { Kysely } from 'kysely';
import type { ModuleMigration } from '../../core/face-module.js';
import type { Mode } from '../../store/schema.js';

declare module '../../store/schema.js' {
  interface Database {
    auth_users: AuthUserTable;
    auth_sessions: AuthSessionTable;
    auth_login_throttle: AuthLoginThrottleTable;
  }
}

export interface AuthUserTable {
  id: string;
  mode: Mode;
  entity_id: string;
  /** Lower-cased. */
  email: string;
  name: string | null;
  password_hash: string;
  created_at: string;
  /** When an admin disabled the user; null while it is enabled. */
  disabled_at: string | null;
}

export interface AuthSessionTable {
  id: string;
  mode: Mode;
  entity_id: string;
  user_id: string;
  /** SHA-256 of the session token, hex. */
  token_hash: string;
  created_at: string;
  expires_at: string;
  ended_at: string | null;
}

/**
 * The recent failed logins of one e-mail address in a partition, whether or not a user has it (so a refusal
 * reveals no account): the latest failures only, as many as the login throttle counts.
 */
export interface AuthLoginThrottleTable {
  mode: Mode;
  entity_id: string;
  /** Lower-cased, as logins compare it. */
  email: string;
  /** JSON array of ISO times, oldest first. */
  failures: string;
  /** The newest of them: rows whose newest failure is past the window are deleted. */
  last_failed_at: string;
}

/** One idempotency key as used within one scope, and the reply it produced once that is known. */

export const migrations: readonly ModuleMigration[] = [
  {
    name: '0001_keys_and_auth',
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('auth_users')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('entity_id', 'text', (c) => c.notNull())
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('name', 'text')
        .addColumn('password_hash', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('auth_users_email', ['mode', 'entity_id', 'email'])
        .execute();
      await db.schema
        .createTable('auth_sessions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('entity_id', 'text', (c) => c.notNull())
        .addColumn('user_id', 'text', (c) => c.notNull().references('auth_users.id').onDelete('cascade'))
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('ended_at', 'text')
        .execute();
    },
  },
  {
    name: '0013_auth_admin',
    // Admins disable users (auth.disableUser), list them per partition newest first, and end or delete a
    // user's sessions by user.
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('auth_users').addColumn('disabled_at', 'text').execute();
      await db.schema.createIndex('auth_users_list').on('auth_users').columns(['mode', 'entity_id', 'id']).execute();
      await db.schema.createIndex('auth_sessions_user').on('auth_sessions').column('user_id').execute();
    },
  },
  {
    name: '0019_login_throttle',
    // The recent failed logins per e-mail address of a partition (auth.login refuses an address with too many),
    // in the store so that every process counts the same failures; swept by the time of their newest failure.
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('auth_login_throttle')
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('entity_id', 'text', (c) => c.notNull())
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('failures', 'text', (c) => c.notNull())
        .addColumn('last_failed_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('auth_login_throttle_pkey', ['mode', 'entity_id', 'email'])
        .execute();
      await db.schema.createIndex('auth_login_throttle_stale').on('auth_login_throttle').column('last_failed_at').execute();
    },
  },
];
