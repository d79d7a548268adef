/**
 * The payments section: payment intents per second, each call a `payments.createIntent` that creates and
 * confirms a $19.99 card payment at once on the test-mode sandbox (no network), so that an intent costs what
 * this server does for it: the intent row, its claim and moves, a ledger transfer and an event, in the call's
 * transaction; beside the pipeline row (bench/beside-pipeline.ts).
 */
import { besidePipeline } from './beside-pipeline.js';

// 4242… is the sandbox's card that succeeds: every call charges, none is declined (402) or held.
const createIntent = {
  face: 'payments',
  action: 'createIntent',
  payload: { amount: 1999, currency: 'usd', paymentMethod: { card: { number: '4242424242424242', expMonth: 12, expYear: 2030 } }, confirm: true },
};

export const payments = () =>
  besidePipeline({
    section: 'payments',
    title: 'Payment intents: POST /do payments.createIntent (create + confirm, sandbox processor)',
    unit: 'intents',
    call: createIntent,
    // A 200 is not yet a charge: an intent left in `requires_confirmation` would answer 200 too and cost less.
    check: (status, body) => {
      const intent = body.data as { status?: string; amountReceived?: number } | undefined;
      if (intent?.status === 'succeeded' && intent.amountReceived === createIntent.payload.amount) return undefined;
      return `a sample call answered ${status} with an intent ${intent?.status ?? 'missing'}, not succeeded with ${createIntent.payload.amount} received.`;
    },
  });
