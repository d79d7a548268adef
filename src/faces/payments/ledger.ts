/**
 * The double-entry ledger behind every money movement (docs/contract.md § Payments and billing; TigerBeetle's accounts and transfers).
 * A transfer is a set of postings in one currency whose amounts (integer minor units, signed) sum to zero;
 * it is append-only and idempotent on its id within a partition. Each account keeps the running sum of its
 * postings, updated in the same transaction as the postings, by a conditional UPDATE: an account flagged
 * `noOverdraft` refuses any posting that would take it below zero, and since the UPDATE locks the row,
 * concurrent transfers against one account (50 refunds of one capture, from several processes) are decided
 * one after another on the balance left by the previous one. Run transfers in the call's transaction, so
 * that a failed call, or an atomic batch that aborts, leaves no posting behind.
 */
import { sql } from 'kysely';
import type { Db, Mode } from '../../store/schema.js';

export interface Partition {
  mode: Mode;
  entityId: string;
}

export interface Account {
  /** Names the account within its partition, e.g. `intent:pi_…:captured`. */
  id: string;
  currency: string;
  /** The account may never hold less than zero. */
  noOverdraft: boolean;
}

export interface Transfer {
  /** Idempotent: a second transfer with the same id in the partition is not posted again. */
  id: string;
  currency: string;
  /** Why money moved, e.g. `capture`, `refund`. */
  kind: string;
  postings: readonly { account: string; amount: number }[];
}

/** A posting would take a no-overdraft account below zero: the transfer is refused as a whole. */
export class OverdraftError extends Error {
  constructor(readonly account: string) {
    super(`The transfer would take account ${account} below zero.`);
    this.name = 'OverdraftError';
  }
}

/** Opens accounts that do not exist yet (the flags of an existing account are kept). */
export async function openAccounts(db: Db, p: Partition, accounts: readonly Account[]): Promise<void> {
  if (accounts.length === 0) return;
  const now = new Date().toISOString();
  await db
    .insertInto('ledger_accounts')
    .values(accounts.map((a) => ({ mode: p.mode, entity_id: p.entityId, id: a.id, currency: a.currency, no_overdraft: a.noOverdraft ? 1 : 0, balance: 0, created_at: now })))
    .onConflict((oc) => oc.columns(['mode', 'entity_id', 'id']).doNothing())
    .execute();
}

/**
 * Posts a transfer: `posted`, or `duplicate` when a transfer with its id was posted before (nothing moves
 * again). Throws OverdraftError when a no-overdraft account would go below zero; the caller's transaction
 * must then roll back (balances of the accounts updated before it are part of it).
 */
export async function postTransfer(db: Db, p: Partition, transfer: Transfer): Promise<'posted' | 'duplicate'> {
  if (transfer.postings.length === 0) throw new Error(`Transfer ${transfer.id} has no postings.`);
  // Summed exactly: in floating point, amounts near 2^53 can sum to zero when they do not balance.
  let sum = 0n;
  const named = new Set<string>();
  for (const { account, amount } of transfer.postings) {
    if (!Number.isSafeInteger(amount)) throw new Error(`Posting to ${account} of ${amount}: amounts are integer minor units.`);
    if (named.has(account)) throw new Error(`Transfer ${transfer.id} names account ${account} more than once.`);
    named.add(account);
    sum += BigInt(amount);
  }
  if (sum !== 0n) throw new Error(`Transfer ${transfer.id} does not balance: its postings sum to ${sum}.`);
  const now = new Date().toISOString();
  const inserted = await db
    .insertInto('ledger_transfers')
    .values({ mode: p.mode, entity_id: p.entityId, id: transfer.id, currency: transfer.currency, kind: transfer.kind, created_at: now })
    .onConflict((oc) => oc.columns(['mode', 'entity_id', 'id']).doNothing())
    .returning('id')
    .execute();
  if (inserted.length === 0) return 'duplicate';
  // In account order: transfers touching the same accounts lock them in the same order, so never deadlock.
  const postings = [...transfer.postings].sort((a, b) => (a.account < b.account ? -1 : a.account > b.account ? 1 : 0));
  for (const { account, amount } of postings) {
    const updated = await db
      .updateTable('ledger_accounts')
      .set({ balance: sql`balance + ${amount}` })
      .where('mode', '=', p.mode)
      .where('entity_id', '=', p.entityId)
      .where('id', '=', account)
      .where('currency', '=', transfer.currency)
      .where((eb) => eb.or([eb('no_overdraft', '=', 0), eb(sql<number>`balance + ${amount}`, '>=', 0)]))
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) !== 1) {
      const exists = await db.selectFrom('ledger_accounts').select('currency').where('mode', '=', p.mode).where('entity_id', '=', p.entityId).where('id', '=', account).executeTakeFirst();
      if (!exists || exists.currency !== transfer.currency) throw new Error(`No ${transfer.currency} account ${account} to post to.`);
      throw new OverdraftError(account);
    }
  }
  await db
    .insertInto('ledger_postings')
    .values(postings.map(({ account, amount }) => ({ mode: p.mode, entity_id: p.entityId, transfer_id: transfer.id, account, currency: transfer.currency, amount, created_at: now })))
    .execute();
  return 'posted';
}

/** The balance of each account whose id starts with `prefix`, by currency. */
export async function balances(db: Db, p: Partition, prefix = ''): Promise<{ id: string; currency: string; balance: number }[]> {
  const rows = await db
    .selectFrom('ledger_accounts')
    .select(['id', 'currency', 'balance'])
    .where('mode', '=', p.mode)
    .where('entity_id', '=', p.entityId)
    // Compared, not matched with LIKE: SQLite's LIKE ignores ASCII case and has no escape character unless told.
    .where(sql<string>`substr(${sql.ref('id')}, 1, ${[...prefix].length})`, '=', prefix)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ id: r.id, currency: r.currency, balance: Number(r.balance) }));
}

/** The sum of every posting of a partition, by currency: zero for each, always (the invariant tests read it). */
export async function postingSums(db: Db, p: Partition): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('ledger_postings')
    .select(['currency', (eb) => eb.fn.sum<string | number>('amount').as('sum')])
    .where('mode', '=', p.mode)
    .where('entity_id', '=', p.entityId)
    .groupBy('currency')
    .execute();
  return new Map(rows.map((r) => [r.currency, Number(r.sum)]));
}
