/**
 * Concurrent refunds of one capture can never exceed it (docs/contract.md § Payments and billing): 50 refunds of 300 against a capture of
 * 10 000 into a no-overdraft account, each in a transaction of its own, let exactly 33 through. On PostgreSQL
 * they race from two Node processes, each with its own pool (test/payments/ledger-worker.ts), started at the
 * same moment; on every store they race from one process too (on SQLite the writer thread serializes them).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface, type Interface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balances, openAccounts, OverdraftError, postingSums, postTransfer, type Partition } from '../../src/faces/payments/ledger.js';
import { openShippedStore } from '../../src/server/shipped.js';
import type { Db } from '../../src/store/schema.js';
import { newId } from '../../src/store/secrets.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { implementations, type StoreLocation } from '../store/implementations.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const CAPTURE = 10_000;
const REFUND = 300;
const CAPTURED = 'intent:pi:captured';
const WORLD = 'world:usd';

/** A partition with a capture of 10 000 into its no-overdraft captured account. */
async function captured(db: Db): Promise<Partition> {
  const p: Partition = { mode: 'live', entityId: newId('ent') };
  await openAccounts(db, p, [
    { id: WORLD, currency: 'usd', noOverdraft: false },
    { id: CAPTURED, currency: 'usd', noOverdraft: true },
  ]);
  const posted = await db.transaction().execute((trx) =>
    postTransfer(trx, p, {
      id: 'capture:pi',
      currency: 'usd',
      kind: 'capture',
      postings: [
        { account: WORLD, amount: -CAPTURE },
        { account: CAPTURED, amount: CAPTURE },
      ],
    }),
  );
  expect(posted).toBe('posted');
  return p;
}

/** Balances, sums, and each account's balance against the sum of its postings, read from the rows. */
async function ledgerState(db: Db, p: Partition) {
  const sums = await db
    .selectFrom('ledger_postings')
    .select(['account', (eb) => eb.fn.sum<string | number>('amount').as('sum'), (eb) => eb.fn.countAll<string | number>().as('count')])
    .where('mode', '=', p.mode)
    .where('entity_id', '=', p.entityId)
    .groupBy('account')
    .execute();
  const refunds = await db.selectFrom('ledger_transfers').select('id').where('mode', '=', p.mode).where('entity_id', '=', p.entityId).where('kind', '=', 'refund').execute();
  return {
    balances: Object.fromEntries((await balances(db, p)).map((b) => [b.id, b.balance])),
    postedSums: Object.fromEntries(sums.map((r) => [r.account, Number(r.sum)])),
    postingCounts: Object.fromEntries(sums.map((r) => [r.account, Number(r.count)])),
    currencySums: Object.fromEntries(await postingSums(db, p)),
    refundIds: refunds.map((r) => r.id).sort(),
  };
}

const refund = (id: string) => ({ id, account: CAPTURED, world: WORLD, currency: 'usd', amount: REFUND });

/** A ledger-worker.ts process: `round` sends it refunds to post all at once and resolves with their outcomes. */
interface Worker {
  child: ChildProcessWithoutNullStreams;
  lines: Interface;
  stderr(): string;
  round(p: Partition, ids: string[]): Promise<string[]>;
}

async function startWorker(databaseUrl: string): Promise<Worker> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/payments/ledger-worker.ts', databaseUrl], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout });
  const waiting: ((line: string) => void)[] = [];
  lines.on('line', (line) => waiting.shift()?.(line));
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`ledger-worker exited with ${code}: ${stderr}`))));
  exited.catch(() => {});
  const nextLine = () => Promise.race([new Promise<string>((resolve) => waiting.push(resolve)), exited]);
  expect(await nextLine()).toBe('ready');
  return {
    child,
    lines,
    stderr: () => stderr,
    // The line is written now, and the reply awaited later: rounds sent to several workers start together.
    round(p, ids) {
      const reply = nextLine();
      child.stdin.write(`${JSON.stringify({ partition: p, refunds: ids.map(refund) })}\n`);
      return reply.then((line) => (JSON.parse(line) as { outcomes: string[] }).outcomes);
    },
  };
}

async function stopWorker(worker: Worker): Promise<void> {
  if (worker.child.exitCode !== null) return;
  const exited = new Promise((resolve) => worker.child.once('exit', resolve));
  worker.child.stdin.end();
  await exited;
}

/** Reads the captured balance again and again until `until` settles: what a reader saw during the race. */
async function sample(db: Db, p: Partition, until: Promise<unknown>): Promise<number[]> {
  let done = false;
  void until.finally(() => (done = true)).catch(() => {});
  const seen: number[] = [];
  while (!done) {
    const row = await db.selectFrom('ledger_accounts').select('balance').where('mode', '=', p.mode).where('entity_id', '=', p.entityId).where('id', '=', CAPTURED).executeTakeFirstOrThrow();
    seen.push(Number(row.balance));
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return seen;
}

const count = (outcomes: string[], outcome: string) => outcomes.filter((o) => o === outcome).length;

describe('ledger refunds racing from two processes on PostgreSQL', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let db: Db;
  let workers: Worker[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    // Migrated here first, so the workers only open it.
    db = await openShippedStore({ dataDir: '/dev/null/unused', databaseUrl: database.url });
    workers = await Promise.all([startWorker(database.url), startWorker(database.url)]);
  });

  afterAll(async () => {
    await Promise.all(workers.map(stopWorker));
    await db?.destroy();
    await database?.drop();
  });

  it('lets exactly 33 of 50 refunds of 300 (25 from each process) through a capture of 10 000', async () => {
    const p = await captured(db);
    const [a, b] = workers as [Worker, Worker];
    const race = Promise.all([
      a.round(
        p,
        Array.from({ length: 25 }, (_, i) => `refund:a:${i}`),
      ),
      b.round(
        p,
        Array.from({ length: 25 }, (_, i) => `refund:b:${i}`),
      ),
    ]);
    const seen = await sample(db, p, race);
    const [fromA, fromB] = await race;
    const outcomes = [...fromA, ...fromB];
    expect(outcomes.filter((o) => o !== 'posted' && o !== 'overdraft'), `${a.stderr()}${b.stderr()}`).toEqual([]);
    expect(count(outcomes, 'posted')).toBe(33);
    expect(count(outcomes, 'overdraft')).toBe(17);
    // Both processes got refunds through: they did race.
    expect(count(fromA, 'posted')).toBeGreaterThan(0);
    expect(count(fromB, 'posted')).toBeGreaterThan(0);
    // Never below zero, and only ever the capture less whole refunds, at every moment a reader looked.
    for (const balance of seen) {
      expect(balance).toBeGreaterThanOrEqual(100);
      expect((CAPTURE - balance) % REFUND).toBe(0);
    }
    const state = await ledgerState(db, p);
    expect(state.balances).toEqual({ [CAPTURED]: 100, [WORLD]: -100 });
    expect(state.postedSums).toEqual(state.balances);
    expect(state.postingCounts).toEqual({ [CAPTURED]: 34, [WORLD]: 34 });
    expect(state.currencySums).toEqual({ usd: 0 });
    expect(state.refundIds).toHaveLength(33);
  });

  it('posts each refund id once when both processes send the same 25 at once', async () => {
    const p = await captured(db);
    const ids = Array.from({ length: 25 }, (_, i) => `refund:same:${i}`);
    const [fromA, fromB] = await Promise.all(workers.map((w) => w.round(p, ids)));
    const outcomes = [...fromA!, ...fromB!];
    expect(outcomes.filter((o) => o !== 'posted' && o !== 'duplicate')).toEqual([]);
    // Id by id: one process posted it, the other was told it is a duplicate.
    for (const [i, id] of ids.entries()) expect([fromA![i], fromB![i]].sort(), id).toEqual(['duplicate', 'posted']);
    const state = await ledgerState(db, p);
    expect(state.balances).toEqual({ [CAPTURED]: CAPTURE - 25 * REFUND, [WORLD]: -(CAPTURE - 25 * REFUND) });
    expect(state.postedSums).toEqual(state.balances);
    expect(state.currencySums).toEqual({ usd: 0 });
    expect(state.refundIds).toEqual([...ids].sort());
  });
});

describe.each(implementations)('ledger refunds racing in one process on $name', (impl) => {
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

  it('lets exactly 33 of 50 concurrent refunds of 300 through a capture of 10 000, each in its own transaction', async () => {
    const p = await captured(db);
    const settled = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) =>
        db.transaction().execute((trx) =>
          postTransfer(trx, p, {
            id: `refund:${i}`,
            currency: 'usd',
            kind: 'refund',
            postings: [
              { account: CAPTURED, amount: -REFUND },
              { account: WORLD, amount: REFUND },
            ],
          }),
        ),
      ),
    );
    expect(settled.filter((s) => s.status === 'rejected' && !(s.reason instanceof OverdraftError))).toEqual([]);
    expect(settled.filter((s) => s.status === 'fulfilled' && s.value === 'posted')).toHaveLength(33);
    expect(settled.filter((s) => s.status === 'rejected')).toHaveLength(17);
    const state = await ledgerState(db, p);
    expect(state.balances).toEqual({ [CAPTURED]: 100, [WORLD]: -100 });
    expect(state.postedSums).toEqual(state.balances);
    expect(state.currencySums).toEqual({ usd: 0 });
    expect(state.refundIds).toHaveLength(33);
  });

  it('never deadlocks on transfers that name the same accounts in opposite orders', async () => {
    const p: Partition = { mode: 'test', entityId: newId('ent') };
    await openAccounts(db, p, [
      { id: 'a', currency: 'usd', noOverdraft: false },
      { id: 'b', currency: 'usd', noOverdraft: false },
    ]);
    const settled = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) =>
        db.transaction().execute((trx) =>
          postTransfer(trx, p, {
            id: `t${i}`,
            currency: 'usd',
            kind: 'move',
            postings:
              i % 2 === 0
                ? [
                    { account: 'a', amount: -(i + 1) },
                    { account: 'b', amount: i + 1 },
                  ]
                : [
                    { account: 'b', amount: -(i + 1) },
                    { account: 'a', amount: i + 1 },
                  ],
          }),
        ),
      ),
    );
    expect(settled.filter((s) => s.status === 'rejected')).toEqual([]);
    // Twenty moves of odd amounts one way, twenty of even amounts the other: a net 20 from b to a.
    const state = await ledgerState(db, p);
    expect(state.balances).toEqual({ a: 20, b: -20 });
    expect(state.postedSums).toEqual(state.balances);
    expect(state.currencySums).toEqual({ usd: 0 });
  });
});
