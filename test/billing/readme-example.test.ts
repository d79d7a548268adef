/**
 * The billing example of the README runs as printed (only the server's address differs) against a real
 * server: a customer, prices, a subscription, some calls and metered usage, the upcoming invoice, an invoice
 * finalized, a declined card, a payment replayed under its key, and a refund.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

/** The first shell block after the README's "### Billing" heading. */
function example(): string {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('\n### Billing\n'));
  const start = section.indexOf('```sh\n') + '```sh\n'.length;
  return section.slice(start, section.indexOf('\n```', start));
}

it('runs the README billing example as printed', async () => {
  const script = example().replaceAll('http://127.0.0.1:8787', server.url);
  const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script], { env: { ...process.env, DISPATCH_KEY: server.adminKey } });
  // One JSON answer per printed line (the assignments print nothing).
  const [ingested, upcoming, finalized, declined, replayed, refund] = stdout.trim().split('\n').map((line) => JSON.parse(line));
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
