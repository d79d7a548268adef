/**
 * The double-entry ledger (src/faces/payments/ledger.ts, docs/contract.md § Payments and billing) on every store implementation: a behaviour table
 * (balanced, unbalanced, duplicate, overdraft, foreign currency, missing account, partitions, prefixes), then
 * property tests that run random payment sequences (authorize, capture, cancel, refund, replays) and check
 * the ledger's invariants and a plain in-memory model after each. Concurrent refunds, from one process and
 * from two, are in ledger-processes.test.ts.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balances, openAccounts, OverdraftError, postingSums, postTransfer, type Account, type Partition, type Transfer } from '../../src/faces/payments/ledger.js';
import { openShippedStore } from '../../src/server/shipped.js';
import type { Db } from '../../src/store/schema.js';
import { newId } from '../../src/store/secrets.js';
import { implementations, type StoreLocation } from '../store/implementations.js';

const MAX = Number.MAX_SAFE_INTEGER;

/** A partition of its own for each test, so tests never see each other's accounts. */
const partition = (mode: Partition['mode'] = 'test'): Partition => ({ mode, entityId: newId('ent') });
const may = (id: string, currency = 'usd'): Account => ({ id, currency, noOverdraft: false });
const strict = (id: string, currency = 'usd'): Account => ({ id, currency, noOverdraft: true });
const transfer = (id: string, postings: Record<string, number>, currency = 'usd', kind = 'test'): Transfer => ({
  id,
  currency,
  kind,
  postings: Object.entries(postings).map(([account, amount]) => ({ account, amount })),
});

/** Posts in a transaction of its own, as a call does: any failure leaves nothing behind. */
const inTransaction = (db: Db, p: Partition, t: Transfer) => db.transaction().execute((trx) => postTransfer(trx, p, t));

/** What is stored for a partition, read from the tables directly. */
async function stored(db: Db, p: Partition) {
  const transfers = await db.selectFrom('ledger_transfers').select(['id', 'currency', 'kind']).where('mode', '=', p.mode).where('entity_id', '=', p.entityId).orderBy('id').execute();
  const postings = await db
    .selectFrom('ledger_postings')
    .select(['transfer_id', 'account', 'currency', 'amount'])
    .where('mode', '=', p.mode)
    .where('entity_id', '=', p.entityId)
    .orderBy('transfer_id')
    .orderBy('account')
    .execute();
  const accounts = await db.selectFrom('ledger_accounts').select(['id', 'currency', 'no_overdraft', 'balance']).where('mode', '=', p.mode).where('entity_id', '=', p.entityId).orderBy('id').execute();
  return {
    transfers,
    postings: postings.map((r) => ({ ...r, amount: Number(r.amount) })),
    accounts: accounts.map((r) => ({ id: r.id, currency: r.currency, noOverdraft: Number(r.no_overdraft) === 1, balance: Number(r.balance) })),
  };
}

async function balanceMap(db: Db, p: Partition, prefix = ''): Promise<Record<string, number>> {
  return Object.fromEntries((await balances(db, p, prefix)).map((b) => [b.id, b.balance]));
}

/** The checks every state of the ledger must pass, whatever happened before. */
async function expectInvariants(db: Db, p: Partition): Promise<Awaited<ReturnType<typeof stored>>> {
  const state = await stored(db, p);
  // Per currency, all postings sum to zero; postingSums says the same as the rows.
  const sums = await postingSums(db, p);
  // Sums in the test are exact too (BigInt): amounts near 2^53 do not add up in floating point.
  const byCurrency = new Map<string, bigint>();
  for (const posting of state.postings) byCurrency.set(posting.currency, (byCurrency.get(posting.currency) ?? 0n) + BigInt(posting.amount));
  expect(Object.fromEntries(sums)).toEqual(Object.fromEntries([...byCurrency].map(([c, sum]) => [c, Number(sum)])));
  for (const [currency, sum] of sums) expect({ currency, sum }).toEqual({ currency, sum: 0 });
  // Every transfer balances, in the transfer's currency, and has postings.
  const transferIds = new Set(state.transfers.map((t) => t.id));
  for (const t of state.transfers) {
    const own = state.postings.filter((x) => x.transfer_id === t.id);
    expect(own.length, `postings of ${t.id}`).toBeGreaterThan(0);
    expect(own.reduce((s, x) => s + BigInt(x.amount), 0n), `sum of ${t.id}`).toBe(0n);
    for (const x of own) expect(x.currency).toBe(t.currency);
  }
  for (const x of state.postings) expect(transferIds.has(x.transfer_id), `transfer of posting ${x.transfer_id}`).toBe(true);
  // Each stored balance is the sum of the account's postings; no-overdraft accounts never below zero.
  const accounts = new Map(state.accounts.map((a) => [a.id, a]));
  const sumOf = new Map<string, bigint>();
  for (const x of state.postings) {
    expect(accounts.get(x.account)?.currency, `account of posting ${x.transfer_id}/${x.account}`).toBe(x.currency);
    sumOf.set(x.account, (sumOf.get(x.account) ?? 0n) + BigInt(x.amount));
  }
  for (const a of state.accounts) {
    expect({ account: a.id, balance: a.balance }).toEqual({ account: a.id, balance: Number(sumOf.get(a.id) ?? 0n) });
    if (a.noOverdraft) expect(a.balance, `balance of ${a.id}`).toBeGreaterThanOrEqual(0);
  }
  // balances() reports exactly the stored accounts.
  expect(await balances(db, p)).toEqual(state.accounts.map((a) => ({ id: a.id, currency: a.currency, balance: a.balance })));
  return state;
}

describe.each(implementations)('ledger on $name', (impl) => {
  let location: StoreLocation;
  let db: Db;

  beforeAll(async () => {
    location = await impl.create();
    db = await openShippedStore(location.config);
  });

  afterAll(async () => {
    await db?.destroy();
    await location?.remove();
  });

  describe('behaviour', () => {
    it('posts a balanced transfer and moves the balances', async () => {
      const p = partition();
      await openAccounts(db, p, [may('world'), strict('a'), strict('b')]);
      expect(await inTransaction(db, p, transfer('t1', { world: -500, a: 300, b: 200 }))).toBe('posted');
      expect(await postTransfer(db, p, transfer('t2', { a: -100, b: 100 }))).toBe('posted');
      expect(await balanceMap(db, p)).toEqual({ a: 200, b: 300, world: -500 });
      const state = await expectInvariants(db, p);
      expect(state.transfers).toEqual([
        { id: 't1', currency: 'usd', kind: 'test' },
        { id: 't2', currency: 'usd', kind: 'test' },
      ]);
      expect(state.postings).toEqual([
        { transfer_id: 't1', account: 'a', currency: 'usd', amount: 300 },
        { transfer_id: 't1', account: 'b', currency: 'usd', amount: 200 },
        { transfer_id: 't1', account: 'world', currency: 'usd', amount: -500 },
        { transfer_id: 't2', account: 'a', currency: 'usd', amount: -100 },
        { transfer_id: 't2', account: 'b', currency: 'usd', amount: 100 },
      ]);
    });

    it('refuses an unbalanced or empty transfer, or one with amounts that are not integer minor units, writing nothing', async () => {
      const p = partition();
      await openAccounts(db, p, [may('world'), may('a'), may('b'), may('c'), may('d'), may('e'), may('f')]);
      const refused: Record<string, number>[] = [
        { world: -500, a: 499 },
        { world: 1 },
        { world: -1.5, a: 1.5 },
        { world: Number.NaN, a: 0 },
        { world: -(MAX + 1), a: MAX + 1 },
        { world: Infinity, a: -Infinity },
        // The sum must be exact: in floating point these sum to 0 but their sum is -1 (and 1).
        { a: -MAX, b: -MAX, c: -2, d: MAX, e: 1, f: MAX },
        { a: -1, b: MAX, c: 3, d: -MAX, e: 1, f: -2 },
      ];
      for (const [i, postings] of refused.entries()) {
        // Outside a transaction too: nothing is written before the transfer is known to balance.
        await expect(postTransfer(db, p, transfer(`t${i}`, postings)), JSON.stringify(postings)).rejects.toThrow(/balance|integer/);
      }
      await expect(postTransfer(db, p, transfer('empty', {}))).rejects.toThrow(/no postings/);
      const state = await expectInvariants(db, p);
      expect(state.transfers).toEqual([]);
      expect(state.postings).toEqual([]);
      expect(state.accounts.every((a) => a.balance === 0)).toBe(true);
    });

    it('posts a balanced transfer of the largest amounts, whose floating-point sum is not zero', async () => {
      const p = partition();
      await openAccounts(db, p, [may('a'), may('b'), may('c'), may('d'), may('e')]);
      // 2^53 - 1 + 2 - (2^53 - 1) - 1 - 1 is 0, but adding left to right in floating point gives -1.
      expect(await inTransaction(db, p, transfer('big', { a: MAX, b: 2, c: -MAX, d: -1, e: -1 }))).toBe('posted');
      expect(await balanceMap(db, p)).toEqual({ a: MAX, b: 2, c: -MAX, d: -1, e: -1 });
      await expectInvariants(db, p);
    });

    it('answers duplicate for a repeated transfer id and moves nothing, whatever the repeat says', async () => {
      const p = partition();
      await openAccounts(db, p, [may('world'), strict('a')]);
      expect(await inTransaction(db, p, transfer('t', { world: -100, a: 100 }))).toBe('posted');
      expect(await inTransaction(db, p, transfer('t', { world: -100, a: 100 }))).toBe('duplicate');
      expect(await postTransfer(db, p, transfer('t', { world: -900, a: 900 }))).toBe('duplicate');
      // Even a repeat that would overdraw, or names a missing account, is only a duplicate.
      expect(await inTransaction(db, p, transfer('t', { world: 5000, a: -5000 }))).toBe('duplicate');
      expect(await inTransaction(db, p, transfer('t', { world: -1, nowhere: 1 }))).toBe('duplicate');
      expect(await balanceMap(db, p)).toEqual({ a: 100, world: -100 });
      const state = await expectInvariants(db, p);
      expect(state.transfers.map((t) => t.id)).toEqual(['t']);
      expect(state.postings).toHaveLength(2);
    });

    it('refuses an overdraft on a no-overdraft account with OverdraftError, and the transaction leaves nothing posted', async () => {
      const p = partition();
      await openAccounts(db, p, [may('a-world'), strict('b-held'), may('c-fee')]);
      expect(await inTransaction(db, p, transfer('fund', { 'a-world': -100, 'b-held': 100 }))).toBe('posted');
      const before = await stored(db, p);
      // 'a-world' is updated first (account order), then 'b-held' is refused: the rollback must undo both.
      const error = await inTransaction(db, p, transfer('over', { 'a-world': 60, 'b-held': -101, 'c-fee': 41 })).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OverdraftError);
      expect((error as OverdraftError).account).toBe('b-held');
      expect(await stored(db, p)).toEqual(before);
      expect(await balanceMap(db, p)).toEqual({ 'a-world': -100, 'b-held': 100, 'c-fee': 0 });
      // To exactly zero is allowed; one more is not.
      expect(await inTransaction(db, p, transfer('all', { 'a-world': 100, 'b-held': -100 }))).toBe('posted');
      await expect(inTransaction(db, p, transfer('one-more', { 'a-world': 1, 'b-held': -1 }))).rejects.toBeInstanceOf(OverdraftError);
      // A refused transfer's id was never taken: it posts once there is money to move.
      expect(await inTransaction(db, p, transfer('over', { 'a-world': -5, 'b-held': 5 }))).toBe('posted');
      expect(await balanceMap(db, p)).toEqual({ 'a-world': -5, 'b-held': 5, 'c-fee': 0 });
      const state = await expectInvariants(db, p);
      expect(state.transfers.map((t) => t.id)).toEqual(['all', 'fund', 'over']);
    });

    it('lets accounts that may overdraft go below zero', async () => {
      const p = partition();
      await openAccounts(db, p, [may('world'), may('credit')]);
      expect(await inTransaction(db, p, transfer('t1', { world: 700, credit: -700 }))).toBe('posted');
      expect(await inTransaction(db, p, transfer('t2', { world: -50, credit: 50 }))).toBe('posted');
      expect(await balanceMap(db, p)).toEqual({ credit: -650, world: 650 });
      await expectInvariants(db, p);
    });

    it('keeps the flags of an account opened again', async () => {
      const p = partition();
      await openAccounts(db, p, [strict('held'), may('world')]);
      await openAccounts(db, p, [may('held'), strict('world', 'eur')]);
      await expect(inTransaction(db, p, transfer('t', { held: -1, world: 1 }))).rejects.toBeInstanceOf(OverdraftError);
      expect(await balances(db, p)).toEqual([
        { id: 'held', currency: 'usd', balance: 0 },
        { id: 'world', currency: 'usd', balance: 0 },
      ]);
      await openAccounts(db, p, []);
    });

    it('refuses a transfer to an account of another currency or to a missing account, and it leaves nothing posted', async () => {
      const p = partition();
      await openAccounts(db, p, [may('a-world'), may('b-euros', 'eur'), strict('c-held')]);
      expect(await inTransaction(db, p, transfer('fund', { 'a-world': -100, 'c-held': 100 }))).toBe('posted');
      const before = await stored(db, p);
      for (const [id, postings] of [
        ['eur', { 'a-world': 10, 'b-euros': -10 }],
        ['missing', { 'a-world': -10, 'b-missing': 10 }],
        ['missing-last', { 'a-world': 10, 'c-held': -20, 'z-missing': 10 }],
      ] as const) {
        const error = await inTransaction(db, p, transfer(id, postings)).catch((e: unknown) => e);
        expect(error, id).toBeInstanceOf(Error);
        expect(error, id).not.toBeInstanceOf(OverdraftError);
        expect(String(error), id).toMatch(/No usd account/);
      }
      // The euro account takes euros.
      expect(await stored(db, p)).toEqual(before);
      await openAccounts(db, p, [may('d-euros', 'eur')]);
      expect(await inTransaction(db, p, transfer('eur', { 'b-euros': -10, 'd-euros': 10 }, 'eur'))).toBe('posted');
      expect(await balanceMap(db, p)).toEqual({ 'a-world': -100, 'b-euros': -10, 'c-held': 100, 'd-euros': 10 });
      const state = await expectInvariants(db, p);
      expect(Object.fromEntries(await postingSums(db, p))).toEqual({ eur: 0, usd: 0 });
      expect(state.transfers.map((t) => t.id)).toEqual(['eur', 'fund']);
    });

    it('refuses a transfer that names an account twice, leaving nothing posted', async () => {
      const p = partition();
      await openAccounts(db, p, [may('world'), strict('a')]);
      const before = await stored(db, p);
      const twice: Transfer = { id: 't', currency: 'usd', kind: 'test', postings: [{ account: 'a', amount: 5 }, { account: 'world', amount: -5 }, { account: 'a', amount: 0 }] };
      await expect(inTransaction(db, p, twice)).rejects.toThrow(/more than once/);
      // Refused before anything is written, so outside a transaction too.
      await expect(postTransfer(db, p, twice)).rejects.toThrow(/more than once/);
      expect(await stored(db, p)).toEqual(before);
      await expectInvariants(db, p);
    });

    it('keeps partitions (mode, entity) apart: accounts, transfer ids, balances and sums', async () => {
      const entity = newId('ent');
      const parts: Partition[] = [
        { mode: 'test', entityId: entity },
        { mode: 'live', entityId: entity },
        { mode: 'test', entityId: `${entity}x` },
      ];
      const [testP, liveP, otherP] = parts as [Partition, Partition, Partition];
      for (const [i, p] of parts.entries()) {
        await openAccounts(db, p, [may('world'), strict('held')]);
        // The same transfer id in each partition is a transfer of its own.
        expect(await inTransaction(db, p, transfer('t', { world: -(i + 1) * 100, held: (i + 1) * 100 }))).toBe('posted');
      }
      // An account opened in one partition does not exist in another.
      await openAccounts(db, testP, [may('only-test')]);
      await expect(inTransaction(db, liveP, transfer('u', { world: -1, 'only-test': 1 }))).rejects.toThrow(/No usd account/);
      // Money in another partition cannot be spent.
      await expect(inTransaction(db, otherP, transfer('spend', { held: -301, world: 301 }))).rejects.toBeInstanceOf(OverdraftError);
      await expect(inTransaction(db, testP, transfer('spend', { held: -101, world: 101 }))).rejects.toBeInstanceOf(OverdraftError);
      expect(await balanceMap(db, testP)).toEqual({ held: 100, 'only-test': 0, world: -100 });
      expect(await balanceMap(db, liveP)).toEqual({ held: 200, world: -200 });
      expect(await balanceMap(db, otherP)).toEqual({ held: 300, world: -300 });
      for (const p of parts) {
        const state = await expectInvariants(db, p);
        expect(state.transfers.map((t) => t.id)).toEqual(['t']);
        expect(state.postings).toHaveLength(2);
      }
      // A sum over one partition: a posting elsewhere that leaves it unbalanced would show.
      expect(Object.fromEntries(await postingSums(db, testP))).toEqual({ usd: 0 });
      expect(await postingSums(db, partition())).toEqual(new Map());
    });

    it('matches a balances() prefix literally: % _ and \\ are not patterns, and case counts', async () => {
      const p = partition();
      const ids = ['a%b:1', 'axb:1', 'a_c:1', 'abc:1', 'a\\d:1', 'a\\\\d:1', 'aXd:1', 'A%b:1', 'ab%:1', 'ab:1'];
      await openAccounts(db, p, ids.map((id) => may(id)));
      const ids_ = async (prefix: string) => (await balances(db, p, prefix)).map((b) => b.id).sort();
      expect(await ids_('a%')).toEqual(['a%b:1']);
      expect(await ids_('a_')).toEqual(['a_c:1']);
      expect(await ids_('a\\')).toEqual(['a\\\\d:1', 'a\\d:1']);
      expect(await ids_('a\\d')).toEqual(['a\\d:1']);
      expect(await ids_('ab%')).toEqual(['ab%:1']);
      expect(await ids_('A')).toEqual(['A%b:1']);
      expect(await ids_('ab')).toEqual(['ab%:1', 'ab:1', 'abc:1']);
      expect(await ids_('%')).toEqual([]);
      expect(await ids_('_')).toEqual([]);
      expect(await ids_('')).toHaveLength(ids.length);
      expect(await ids_('abc:1')).toEqual(['abc:1']);
      expect(await ids_('abc:10')).toEqual([]);
    });
  });

  describe('payment sequences (property)', () => {
    it('keeps every invariant, and agrees with an in-memory model, over random payment sequences', async () => {
      const totals = { posted: 0, duplicate: 0, overdraft: 0, missing: 0, refunds: 0 };
      await fc.assert(
        fc.asyncProperty(sequence, async (ops) => {
          const p = partition(Math.random() < 0.5 ? 'test' : 'live');
          const model = new LedgerModel();
          const attempts: Transfer[] = [];
          let refundNo = 0;
          for (const op of ops) {
            const step = planStep(op, model, attempts, refundNo);
            if (op.type === 'refund') refundNo++;
            attempts.push(step.transfer);
            const expected = model.predict(step.transfer, step.open);
            const actual = await db
              .transaction()
              .execute(async (trx) => {
                if (step.open.length > 0) await openAccounts(trx, p, step.open);
                return await postTransfer(trx, p, step.transfer);
              })
              .catch((error: unknown) => {
                if (error instanceof OverdraftError) return 'overdraft' as const;
                if (error instanceof Error && /No \w+ account/.test(error.message)) return 'missing' as const;
                throw error;
              });
            expect({ op, transfer: step.transfer, outcome: actual }).toEqual({ op, transfer: step.transfer, outcome: expected });
            // The accounts were opened if the transaction committed.
            if (actual === 'posted' || actual === 'duplicate') model.open(step.open);
            model.apply(step.transfer, expected);
            totals[actual]++;
            if (actual === 'posted' && step.transfer.kind === 'refund') totals.refunds++;
          }
          await expectInvariants(db, p);
          expect(await balanceMap(db, p)).toEqual(model.balances());
          // Never refunded more than was captured, intent by intent, from the rows themselves.
          const rows = await db
            .selectFrom('ledger_postings as lp')
            .innerJoin('ledger_transfers as lt', (j) => j.onRef('lt.mode', '=', 'lp.mode').onRef('lt.entity_id', '=', 'lp.entity_id').onRef('lt.id', '=', 'lp.transfer_id'))
            .select(['lt.kind', 'lp.account', 'lp.amount'])
            .where('lp.mode', '=', p.mode)
            .where('lp.entity_id', '=', p.entityId)
            .execute();
          for (let i = 0; i < INTENTS; i++) {
            const captured = rows.filter((r) => r.kind === 'capture' && r.account === `intent:${i}:captured`).reduce((s, r) => s + Number(r.amount), 0);
            const refunded = rows.filter((r) => r.kind === 'refund' && r.account === `intent:${i}:captured`).reduce((s, r) => s - Number(r.amount), 0);
            expect(refunded, `refunded of intent ${i}`).toBeLessThanOrEqual(captured);
            expect(refunded, `refunded of intent ${i}`).toBe(model.refunded.get(i) ?? 0);
          }
        }),
        { numRuns: 50 },
      );
      // The sequences reached every outcome, so the checks above were not vacuous.
      expect(totals.posted).toBeGreaterThan(0);
      expect(totals.duplicate).toBeGreaterThan(0);
      expect(totals.overdraft).toBeGreaterThan(0);
      expect(totals.missing).toBeGreaterThan(0);
      expect(totals.refunds).toBeGreaterThan(0);
    });
  });
});

// ---- The payment model of the property tests ----

const INTENTS = 4;
const currencyOf = (intent: number) => (intent % 2 === 0 ? 'usd' : 'eur');
const authorized = (i: number) => `intent:${i}:authorized`;
const captured = (i: number) => `intent:${i}:captured`;
const world = (i: number) => `world:${currencyOf(i)}`;

type Operation =
  | { type: 'authorize'; intent: number; amount: number }
  /** `total` leaves the authorized account ('all': what it holds), `permille` of it is captured, the rest returns. */
  | { type: 'capture'; intent: number; total: 'all' | number; permille: number }
  | { type: 'cancel'; intent: number; total: 'all' | number }
  | { type: 'refund'; intent: number; amount: number }
  /** Posts an earlier attempt's id again, as it was or with other amounts. */
  | { type: 'replay'; pick: number; altered: boolean };

const intent = fc.integer({ min: 0, max: INTENTS - 1 });
const authorizeOp = fc.record({ type: fc.constant('authorize' as const), intent, amount: fc.integer({ min: 1, max: 10_000 }) });
const operation: fc.Arbitrary<Operation> = fc.oneof(
  { weight: 2, arbitrary: authorizeOp },
  {
    weight: 3,
    arbitrary: fc.record({
      type: fc.constant('capture' as const),
      intent,
      total: fc.oneof({ weight: 3, arbitrary: fc.constant('all' as const) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 12_000 }) }),
      permille: fc.oneof(fc.constant(1000), fc.integer({ min: 0, max: 1000 })),
    }),
  },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('cancel' as const), intent, total: fc.oneof(fc.constant('all' as const), fc.integer({ min: 0, max: 12_000 })) }) },
  { weight: 5, arbitrary: fc.record({ type: fc.constant('refund' as const), intent, amount: fc.oneof(fc.integer({ min: 1, max: 1_500 }), fc.integer({ min: 1, max: 12_000 })) }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('replay' as const), pick: fc.nat(), altered: fc.boolean() }) },
);
/** Up to 30 steps: a few payments authorized and captured first (so that most steps have money to move), then anything. */
const sequence: fc.Arbitrary<Operation[]> = fc
  .tuple(
    fc.array(fc.record({ intent, amount: fc.integer({ min: 1, max: 10_000 }), permille: fc.integer({ min: 0, max: 1000 }) }), { maxLength: 3 }),
    fc.array(operation, { minLength: 1, maxLength: 24, size: 'max' }),
  )
  .map(([paid, rest]): Operation[] => [
    ...paid.flatMap(({ intent, amount, permille }): Operation[] => [
      { type: 'authorize', intent, amount },
      { type: 'capture', intent, total: 'all', permille },
    ]),
    ...rest,
  ]);

/** The transfer an operation makes, given the model's state, and the accounts it opens first. */
function planStep(op: Operation, model: LedgerModel, attempts: readonly Transfer[], refundNo: number): { transfer: Transfer; open: Account[] } {
  const neg = (n: number) => 0 - n;
  switch (op.type) {
    case 'authorize': {
      const i = op.intent;
      return {
        open: [strict(authorized(i), currencyOf(i)), strict(captured(i), currencyOf(i)), may(world(i), currencyOf(i))],
        transfer: transfer(`authorize:${i}`, { [world(i)]: neg(op.amount), [authorized(i)]: op.amount }, currencyOf(i), 'authorize'),
      };
    }
    case 'capture': {
      const i = op.intent;
      const total = op.total === 'all' ? model.balance(authorized(i)) : op.total;
      const take = Math.floor((total * op.permille) / 1000);
      return { open: [], transfer: transfer(`capture:${i}`, { [authorized(i)]: neg(total), [captured(i)]: take, [world(i)]: total - take }, currencyOf(i), 'capture') };
    }
    case 'cancel': {
      const i = op.intent;
      const total = op.total === 'all' ? model.balance(authorized(i)) : op.total;
      return { open: [], transfer: transfer(`cancel:${i}`, { [authorized(i)]: neg(total), [world(i)]: total }, currencyOf(i), 'cancel') };
    }
    case 'refund': {
      const i = op.intent;
      return { open: [], transfer: transfer(`refund:${i}:${refundNo}`, { [captured(i)]: neg(op.amount), [world(i)]: op.amount }, currencyOf(i), 'refund') };
    }
    case 'replay': {
      const earlier = attempts[op.pick % Math.max(attempts.length, 1)];
      // Nothing to replay yet: an authorization of a small amount instead.
      if (!earlier) return planStep({ type: 'authorize', intent: 0, amount: 1 }, model, attempts, refundNo);
      const postings = op.altered ? earlier.postings.map((x) => ({ account: x.account, amount: x.amount * 3 })) : earlier.postings;
      return { open: [], transfer: { ...earlier, postings } };
    }
  }
}

/** A plain in-memory ledger: what the store must agree with, step by step. */
class LedgerModel {
  readonly #accounts = new Map<string, { currency: string; noOverdraft: boolean; balance: number }>();
  readonly #posted = new Set<string>();
  /** Refunded per intent. */
  readonly refunded = new Map<number, number>();

  open(accounts: readonly Account[]): void {
    for (const a of accounts) if (!this.#accounts.has(a.id)) this.#accounts.set(a.id, { currency: a.currency, noOverdraft: a.noOverdraft, balance: 0 });
  }

  balance(id: string): number {
    return this.#accounts.get(id)?.balance ?? 0;
  }

  /** Accounts an operation opens count as opened while predicting: they are opened in the same transaction. */
  predict(t: Transfer, opening: readonly Account[] = []): 'posted' | 'duplicate' | 'overdraft' | 'missing' {
    if (this.#posted.has(t.id)) return 'duplicate';
    const sorted = [...t.postings].sort((a, b) => (a.account < b.account ? -1 : a.account > b.account ? 1 : 0));
    for (const { account, amount } of sorted) {
      const known = this.#accounts.get(account) ?? opening.find((a) => a.id === account);
      if (!known || known.currency !== t.currency) return 'missing';
      if (known.noOverdraft && this.balance(account) + amount < 0) return 'overdraft';
    }
    return 'posted';
  }

  apply(t: Transfer, outcome: ReturnType<LedgerModel['predict']>): void {
    if (outcome !== 'posted') return;
    this.#posted.add(t.id);
    for (const { account, amount } of t.postings) this.#accounts.get(account)!.balance += amount;
    if (t.kind === 'refund') {
      const i = Number(t.id.split(':')[1]);
      this.refunded.set(i, (this.refunded.get(i) ?? 0) - t.postings.find((x) => x.account === captured(i))!.amount);
    }
  }

  balances(): Record<string, number> {
    return Object.fromEntries([...this.#accounts].map(([id, a]) => [id, a.balance]));
  }
}
