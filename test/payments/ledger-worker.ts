/**
 * A separate process posting refunds to the ledger, for ledger-processes.test.ts:
 * `node --import tsx test/payments/ledger-worker.ts <databaseUrl>`.
 *
 * It opens the store with a pool of its own, opens every connection of the pool, then prints `ready`. Each
 * line on stdin is a round, `{"partition": …, "refunds": [{"id", "account", "world", "currency", "amount"}]}`:
 * it posts all of the round's refunds at once, each in a transaction of its own, and prints one line,
 * `{"outcomes": ["posted" | "duplicate" | "overdraft" | "error: …", …]}`. It ends when stdin does.
 */
import { createInterface } from 'node:readline';
import { sql } from 'kysely';
import { OverdraftError, postTransfer, type Partition } from '../../src/faces/payments/ledger.js';
import { openShippedStore } from '../../src/server/shipped.js';

const POOL = 10;

interface Round {
  partition: Partition;
  refunds: { id: string; account: string; world: string; currency: string; amount: number }[];
}

const databaseUrl = process.argv[2];
if (!databaseUrl) throw new Error('usage: ledger-worker.ts <databaseUrl>');
const db = await openShippedStore({ dataDir: '/dev/null/unused', databaseUrl, poolSize: POOL });
// Every connection open before the start, so the refunds race each other rather than connection set-up.
await Promise.all(Array.from({ length: POOL }, () => sql`select pg_sleep(0.02)`.execute(db)));
process.stdout.write('ready\n');

for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === '') continue;
  const round = JSON.parse(line) as Round;
  const outcomes = await Promise.all(
    round.refunds.map((r) =>
      db
        .transaction()
        .execute((trx) =>
          postTransfer(trx, round.partition, {
            id: r.id,
            currency: r.currency,
            kind: 'refund',
            postings: [
              { account: r.account, amount: -r.amount },
              { account: r.world, amount: r.amount },
            ],
          }),
        )
        .catch((error: unknown) => (error instanceof OverdraftError ? 'overdraft' : `error: ${error instanceof Error ? error.message : String(error)}`)),
    ),
  );
  process.stdout.write(`${JSON.stringify({ outcomes })}\n`);
}
await db.destroy();
