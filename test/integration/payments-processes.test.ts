/**
 * Refunds racing across two `dispatch serve` processes sharing PostgreSQL: 50 concurrent refunds of one
 * capture, half sent to each process, never refund more than was captured; exactly as many succeed as fit,
 * the rest are refused `refund_too_large`, and the ledger, the intent and the refunds agree afterwards.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeStripe } from '../helpers/fake-stripe.js';
import { DISPATCH, printedKey, ROOT, serve, sharedStore, type ServeProcess } from '../helpers/process.js';

let drop: (() => Promise<void>) | undefined;
let env: Record<string, string>;
let a: ServeProcess;
let b: ServeProcess;
let admin: string;

async function pay(server: ServeProcess, action: string, payload: unknown) {
  const response = await fetch(`${server.url}/do`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin}`, 'x-entity-id': 'acme', 'content-type': 'application/json' },
    body: JSON.stringify({ face: 'payments', action, payload }),
  });
  return { status: response.status, body: (await response.json()) as any };
}

beforeAll(async () => {
  ({ env, drop } = await sharedStore());
  a = await serve(env);
  admin = printedKey(a.output());
  b = await serve(env);
}, 60_000);

afterAll(async () => {
  for (const p of [a, b]) if (p && p.child.exitCode === null && p.child.signalCode === null) await p.stop();
  await drop?.();
});

describe('refunds racing across processes', () => {
  it('never refund more than was captured', async () => {
    const charged = await pay(a, 'createIntent', { amount: 10_000, currency: 'usd', paymentMethod: { card: { number: '4242424242424242', expMonth: 1, expYear: 2040 } }, confirm: true });
    expect(charged.body.data.status).toBe('succeeded');
    const id = charged.body.data.id;
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => pay(i % 2 ? a : b, 'createRefund', { intent: id, amount: 300 })));
    const succeeded = answers.filter((r) => r.status === 200);
    const refused = answers.filter((r) => r.status !== 200);
    expect(succeeded).toHaveLength(33);
    expect(refused.map((r) => r.body.error.code)).toEqual(Array(17).fill('refund_too_large'));
    const intent = (await pay(b, 'getIntent', { id })).body.data;
    expect([intent.amountReceived, intent.amountRefunded]).toEqual([10_000, 9_900]);
    const refunds = (await pay(a, 'listRefunds', { intent: id, limit: 100 })).body.data.items;
    expect(refunds).toHaveLength(33);
    expect((await pay(b, 'balance', {})).body.data.available).toEqual([{ amount: 100, currency: 'usd' }]);
  });
});

describe('live payments of dispatch serve', () => {
  it('go to the Stripe that STRIPE_API_KEY and STRIPE_API_BASE name', async () => {
    const stripe = await startFakeStripe('sk_test_serve_key');
    const liveEnv = { ...env, STRIPE_API_KEY: 'sk_test_serve_key', STRIPE_API_BASE: stripe.url };
    const created = execFileSync(process.execPath, [DISPATCH, 'keys', 'create', '--mode', 'live', '--json'], { cwd: ROOT, env: { ...process.env, ...liveEnv } });
    const live = (JSON.parse(created.toString()) as { key: string }).key;
    const server = await serve(liveEnv);
    try {
      const response = await fetch(`${server.url}/do`, {
        method: 'POST',
        headers: { authorization: `Bearer ${live}`, 'x-entity-id': 'acme', 'content-type': 'application/json' },
        body: JSON.stringify({ face: 'payments', action: 'createIntent', payload: { amount: 1500, currency: 'usd', paymentMethod: { id: 'pm_card_visa' }, confirm: true } }),
      });
      const body = (await response.json()) as any;
      expect([response.status, body.data.status]).toEqual([200, 'succeeded']);
      expect(stripe.requests.map((r) => r.path)).toEqual(['/v1/payment_intents']);
    } finally {
      await server.stop();
      await stripe.close();
    }
  });
});
