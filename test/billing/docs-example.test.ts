/**
 * The billing walkthrough (docs/faces/billing.md) runs as printed (only the server's address differs) against a
 * real server: a customer, prices, a subscription, some calls and metered usage, the upcoming invoice, an invoice
 * finalized, a declined card, a payment replayed under its key, and a refund.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runPageExample } from '../helpers/doc-examples.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());


it('runs the billing walkthrough as printed', async () => {
  const lines = await runPageExample('docs/faces/billing.md', server);
  const [ingested, upcoming, finalized, declined, replayed, refund] = lines;
  expect(ingested.data.results).toEqual([{ id: 'run-1', status: 'accepted' }]);
  const [fee, tokens, calls] = upcoming.data.lines;
  expect([fee.amount, tokens.amount, calls.amount]).toEqual([500, 100, 0]);
  expect(Number(calls.quantity)).toBeGreaterThan(0.0015);
  expect(Number(calls.exactAmount)).toBeGreaterThan(0.18);
  expect(upcoming.data.total).toBe(600);
  expect(finalized.data).toMatchObject({ number: 'INV-000001', status: 'open', total: 600 });
  expect(declined.error).toMatchObject({ type: 'payment_error', code: 'card_declined', details: { invoice: finalized.data.id } });
  expect(replayed.data).toMatchObject({ id: finalized.data.id, status: 'paid', amountPaid: 600, paymentIntent: expect.stringMatching(/^pi_/) });
  expect(refund.data).toMatchObject({ intent: replayed.data.paymentIntent, amount: 200, status: 'succeeded' });
});
