/**
 * Table types of the store, shared by the SQLite and PostgreSQL dialects. Times are ISO-8601 strings and
 * lists are JSON text, so that the same typed queries run unchanged on both.
 */
import type { Kysely } from 'kysely';

export type Mode = 'live' | 'test';

export interface ApiKeyTable {
  id: string;
  mode: Mode;
  /** SHA-256 of the secret, hex. */
  hash: string;
  name: string;
  prefix: string;
  last4: string;
  /** JSON array of scope strings. */
  scopes: string;
  /** JSON: `"*"` or an array of entity ids. */
  entities: string;
  tier: string;
  api_version: string | null;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
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

/** One idempotency key as used within one scope, and the reply it produced once that is known. */
export interface IdempotencyRecordTable {
  /** API key id, mode and entity, joined with `:`. */
  scope: string;
  key: string;
  /** SHA-256 of face, action, resolved version and canonical payload. */
  fingerprint: string;
  state: 'running' | 'done';
  /** HTTP status of the stored reply; null while running. */
  status: number | null;
  /** JSON response body; null while running. */
  body: string | null;
  /** JSON object of response headers; null while running. */
  headers: string | null;
  created_at: string;
  expires_at: string;
}

export interface Database {
  api_keys: ApiKeyTable;
  auth_users: AuthUserTable;
  auth_sessions: AuthSessionTable;
  idempotency_records: IdempotencyRecordTable;
}

export type Db = Kysely<Database>;
