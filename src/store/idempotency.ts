/**
 * Idempotency records (docs/contract.md § Idempotency): one row per (scope, key), claimed by the first request that uses the
 * key and completed with its reply. Every step is a single conditional statement whose affected-row count
 * says who won, so concurrent requests, in one process or several sharing PostgreSQL, claim a key once.
 */
import { CompiledQuery } from 'kysely';
import { storeKind } from './open.js';
import { insertRunning } from './claim-batch.js';
import { precompiled, type Placeholder } from './precompiled.js';
import type { Db, IdempotencyRecordTable } from './schema.js';
import { seal, unsealNullable } from './sealed.js';

/** A stored record, as the request that finds it sees it. */
export interface IdempotencyRecord {
  fingerprint: string;
  state: 'running' | 'done';
  status: number | null;
  body: string | null;
  headers: string | null;
  createdAt: string;
  expiresAt: string;
}

export interface IdempotencyClaim {
  scope: string;
  key: string;
  fingerprint: string;
  /** ISO time; records expiring at or before it are gone. */
  now: string;
  /** ISO time until which the new record holds. */
  expiresAt: string;
  /** ISO time after which a record still running is taken to be abandoned (its owner died) and may be claimed again. */
  leaseUntil: string;
}

/**
 * `since`: when the record the claim holds began, the same for every request that resumes it and new when a
 * key is used again after its record expired, so that what a call records under its key (the outside effects
 * it started) belongs to that one use of the key.
 */
export type ClaimResult = { claimed: true; since: string } | { claimed: false; record: IdempotencyRecord };

export interface IdempotencyKeyRef {
  scope: string;
  key: string;
  /** The lease the claim was taken with: only the claim that holds it may complete or release the key. */
  leaseUntil: string;
}

// A record can vanish (released or purged) between a failed insert and the look-up that follows; then the
// claim starts over. A second vanishing in a row is all but impossible, so a few rounds are plenty.
const CLAIM_ATTEMPTS = 3;

/**
 * Claims a key for a new request: inserts a running record, or takes over one that has expired. When the
 * key is held, returns its record for the caller to replay (done), refuse (running) or reject (other
 * fingerprint).
 */
export async function claimIdempotencyKey(db: Db, claim: IdempotencyClaim): Promise<ClaimResult> {
  const running = {
    fingerprint: claim.fingerprint,
    state: 'running',
    status: null,
    body: null,
    headers: null,
    created_at: claim.now,
    expires_at: claim.expiresAt,
    leased_until: claim.leaseUntil,
  } as const;
  for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
    // Inserted together with the claims of other requests in this turn (claim-batch.ts).
    const inserted = await insertRunning(db, {
      scope: claim.scope,
      key: claim.key,
      fingerprint: claim.fingerprint,
      created_at: claim.now,
      expires_at: claim.expiresAt,
      leased_until: claim.leaseUntil,
    });
    if (inserted) return { claimed: true, since: claim.now };

    // Taken over. An expired record starts anew, as if the key had never been used. A running one of the same
    // request whose lease lapsed (the process running it died, and its effects, committed only with its reply,
    // never happened; or the call ended with an outside effect in flight, which this request resumes) keeps
    // its start and expiry and takes a new lease. Each condition is re-checked on the row itself, so of two
    // requests taking over the same record only the first changes it (PostgreSQL re-evaluates it after
    // waiting for the row lock).
    const renewed = await db
      .updateTable('idempotency_records')
      .set(running)
      .where('scope', '=', claim.scope)
      .where('key', '=', claim.key)
      .where('expires_at', '<=', claim.now)
      .executeTakeFirst();
    if (Number(renewed.numUpdatedRows) === 1) return { claimed: true, since: claim.now };
    const resumed = await db
      .updateTable('idempotency_records')
      .set({ leased_until: claim.leaseUntil })
      .where('scope', '=', claim.scope)
      .where('key', '=', claim.key)
      .where('state', '=', 'running')
      .where('fingerprint', '=', claim.fingerprint)
      .where('leased_until', '<=', claim.now)
      .executeTakeFirst();

    const row = await db
      .selectFrom('idempotency_records')
      .selectAll()
      .where('scope', '=', claim.scope)
      .where('key', '=', claim.key)
      .executeTakeFirst();
    // The lease this request took, read back on the row it took it on.
    if (Number(resumed.numUpdatedRows) === 1 && row) return { claimed: true, since: row.created_at };
    if (row) return { claimed: false, record: toRecord(row) };
  }
  throw new Error(`Idempotency key could not be claimed after ${CLAIM_ATTEMPTS} attempts`);
}

/** The record as the claim `ref` took it: still running, under the lease that claim holds. */
const heldBy = (ref: IdempotencyKeyRef) => ({ scope: ref.scope, key: ref.key, state: 'running' as const, leased_until: ref.leaseUntil });

/** A claimed key's reply, to be stored. */
export type IdempotencyCompletion = IdempotencyKeyRef & { status: number; body: string; headers: string };

/** Stores the reply of a claimed key; false when the key is no longer running (released, purged, done). */
export async function completeIdempotencyKey(db: Db, done: IdempotencyCompletion): Promise<boolean> {
  const result = await db.executeQuery(completionStatement(db, done));
  return Number(result.numAffectedRows) === 1;
}

/**
 * Stores the replies of several claimed keys; false when a claim among them is no longer held (then the
 * caller's transaction must roll back). On PostgreSQL it is one statement, one round trip for all of them.
 */
export async function completeIdempotencyKeys(db: Db, done: readonly IdempotencyCompletion[]): Promise<boolean> {
  if (storeKind(db) !== 'postgres') {
    for (const one of done) if (!(await completeIdempotencyKey(db, one))) return false;
    return true;
  }
  const result = await db.executeQuery(postgresCompletions(done));
  return Number(result.numAffectedRows) === done.length;
}

const completionsSql = new Map<number, string>();

/** The replies of several claims stored by one UPDATE … FROM (VALUES …), its text made once per number of replies. */
function postgresCompletions(done: readonly IdempotencyCompletion[]): CompiledQuery {
  let text = completionsSql.get(done.length);
  if (!text) {
    const rows = done.map((_, i) => `($${i * 6 + 1}, $${i * 6 + 2}, $${i * 6 + 3}, $${i * 6 + 4}::integer, $${i * 6 + 5}, $${i * 6 + 6})`);
    text =
      `update idempotency_records as r set state = 'done', status = v.status, body = v.body, headers = v.headers, leased_until = null ` +
      `from (values ${rows.join(', ')}) as v (scope, key, leased_until, status, body, headers) ` +
      `where r.scope = v.scope and r.key = v.key and r.state = 'running' and r.leased_until = v.leased_until`;
    completionsSql.set(done.length, text);
  }
  return CompiledQuery.raw(text, done.flatMap((d) => [d.scope, d.key, d.leaseUntil, d.status, seal(d.body), d.headers]));
}

/** The statement that stores a claimed key's reply: it changes one row, or none when the claim is no longer held. */
export function completionStatement(db: Db, done: IdempotencyCompletion): CompiledQuery {
  // The reply's body may hold secrets (a new API key, a session token): it is sealed at rest. Its headers
  // (request id, version, deprecation) hold none.
  const { scope, key, leaseUntil, status, headers } = done;
  return precompiled(db, 'idempotency.complete', completeRunning, { scope, key, leaseUntil, status, headers, body: seal(done.body) });
}

/** The reply stored on the record the claim holds. */
const completeRunning = (db: Db, p: Placeholder) =>
  db
    .updateTable('idempotency_records')
    .set({ state: 'done', status: p<number>('status'), body: p('body'), headers: p('headers'), leased_until: null })
    .where((eb) => eb.and(heldBy({ scope: p('scope'), key: p('key'), leaseUntil: p('leaseUntil') })));

/** Gives up a claim whose request was refused before it took effect, so the key may be used again. */
export async function releaseIdempotencyKey(db: Db, ref: IdempotencyKeyRef): Promise<boolean> {
  const result = await db
    .deleteFrom('idempotency_records')
    .where((eb) => eb.and(heldBy(ref)))
    .executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/**
 * Ends a claim's lease at `now` (ISO time) without storing a reply: the record stays running, and the next
 * request with the same key and fingerprint takes it over at once and runs (a call cut short while an outside
 * effect it started was in flight: the retry resumes that effect). Another fingerprint is still refused.
 */
export async function lapseIdempotencyLease(db: Db, ref: IdempotencyKeyRef, now: string): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_records')
    .set({ leased_until: now })
    .where((eb) => eb.and(heldBy(ref)))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Deletes every record that expired at or before `now` (ISO time); returns how many. */
export async function purgeExpiredIdempotency(db: Db, now: string): Promise<number> {
  const result = await db.deleteFrom('idempotency_records').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}

function toRecord(row: IdempotencyRecordTable): IdempotencyRecord {
  return {
    fingerprint: row.fingerprint,
    state: row.state,
    status: row.status,
    body: unsealNullable(row.body),
    headers: row.headers,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  };
}
