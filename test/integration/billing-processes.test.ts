/**
 * Billing periods close on their own across processes: two `dispatch serve` processes and a `dispatch worker`
 * share PostgreSQL, each running the period closer every 50 ms with no grace window. A subscription backdated
 * by three days and a bit gets exactly one invoice per ended period, each finalized once, numbered without gaps
 * or repeats, with one `created` and one `finalized` event each, and its metered usage on the right invoice.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openShippedStore } from '../../src/server/shipped.js';
import { printedKey, serve, sharedStore, startWorker, type ServeProcess } from '../helpers/process.js';

const DAY = 86_400_000;
let drop: (() => Promise<void>) | undefined;
let env: Record<string, string>;
const processes: ServeProcess[] = [];
let admin: string;

async function call(server: ServeProcess, face: string, action: string, payload: unknown) {
  const response = await fetch(`${server.url}/do`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin}`, 'x-entity-id': 'acme', 'content-type': 'application/json' },
    body: JSON.stringify({ face, action, payload }),
  });
  const body = (await response.json()) as any;
  if (response.status !== 200) throw new Error(`${face}.${action}: ${JSON.stringify(body)}`);
  return body.data;
}

beforeAll(async () => {
  ({ env, drop } = await sharedStore());
  // The closers run from the start; the subscription is made with its periods already over, so they race.
  const closing = { ...env, BILLING_CLOSE_INTERVAL_MS: '50', BILLING_GRACE_SECONDS: '0' };
  processes.push(await serve(closing));
  admin = printedKey(processes[0]!.output());
  processes.push(await serve(closing), await startWorker(closing));
}, 60_000);

afterAll(async () => {
  for (const p of processes) if (p.child.exitCode === null && p.child.signalCode === null) await p.stop();
  await drop?.();
});

it('closes each ended period once, across processes, and finalizes each invoice once', async () => {
  const [a, b] = processes as [ServeProcess, ServeProcess];
  const customer = (await call(a, 'payments', 'createCustomer', {})).id;
  const tokens = await call(b, 'billing', 'createPrice', { currency: 'usd', type: 'perUnit', unitAmount: '2', usage: { source: 'meter', meterType: 'tokens' } });
  const start = Date.now() - 3 * DAY - 600_000;
  // 100 tokens in the first day, 250 in the third.
  await call(a, 'usage', 'ingest', {
    events: [
      { id: 'd1', type: 'tokens', value: 100, time: new Date(start + DAY / 2).toISOString() },
      { id: 'd3', type: 'tokens', value: 250, time: new Date(start + 2.5 * DAY).toISOString() },
    ],
  });
  const subscription = await call(b, 'billing', 'subscribe', { customer, prices: [tokens.id], interval: 'day', backdateStartDate: new Date(start).toISOString() });

  // Newest period first (ids made in one millisecond need not sort by creation).
  const invoices = async () => ((await call(a, 'billing', 'listInvoices', { subscription: subscription.id })).items as any[]).sort((x, y) => y.periodStart.localeCompare(x.periodStart));
  await expect.poll(async () => (await invoices()).map((i) => i.status), { timeout: 20_000, interval: 100 }).toEqual(['open', 'paid', 'open']);
  const [third, second, first] = await invoices();
  expect([first.number, second.number, third.number]).toEqual(['INV-000001', 'INV-000002', 'INV-000003']);
  expect([first.total, second.total, third.total]).toEqual([200, 0, 500]);
  // The second day used nothing: paid when it was finalized.
  expect([second.status, second.amountDue, second.paidAt]).toEqual(['paid', 0, second.finalizedAt]);
  expect((await call(b, 'billing', 'getSubscription', { id: subscription.id })).currentPeriodStart).toBe(third.periodEnd);

  const db = await openShippedStore({ dataDir: '.', databaseUrl: env.DATABASE_URL! });
  try {
    const events = await db.selectFrom('events').select(['type']).where('type', 'like', 'billing.invoice.%').execute();
    const count = (type: string) => events.filter((e) => e.type === type).length;
    expect([count('billing.invoice.created'), count('billing.invoice.finalized')]).toEqual([3, 3]);
  } finally {
    await db.destroy();
  }
});
