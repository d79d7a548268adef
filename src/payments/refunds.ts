/**
 * Refunds (API.md §14): all or part of what an intent charged and has not refunded yet. The ledger decides:
 * the refund moves money out of the intent's no-overdraft `captured` account, whose row is locked until the
 * call commits, so concurrent refunds are decided one after another and together never exceed the capture.
 * The processor is asked only once the ledger has taken the amount, inside the same transaction; the money
 * leaves for the world after it answered.
 */
import type { PaymentsCreateRefundPayload, PaymentsRefund } from '../../generated/server/types.js';
import type { HandlerContext } from '../runtime/context.js';
import { ApiError } from '../runtime/errors.js';
import { OverdraftError, openAccounts, postTransfer } from '../store/ledger.js';
import { addRefunded, insertRefund } from '../store/payments.js';
import type { PaymentRefundTable } from '../store/schema.js';
import { newId } from '../store/secrets.js';
import { captured, intentAccounts, refunding, world } from './accounts.js';
import { loadIntent } from './intents.js';
import { processorCall, processorOf, refundKey } from './processing.js';
import { toRefund } from './wire.js';

export async function createRefund(ctx: HandlerContext<'payments.refund.succeeded'>, payload: PaymentsCreateRefundPayload): Promise<PaymentsRefund> {
  const intent = await loadIntent(ctx, payload.intent, '/payload/intent');
  if (intent.status !== 'succeeded') {
    throw new ApiError('intent_state_invalid', `Payment intent ${intent.id} is ${intent.status}; only a charged payment can be refunded.`, { param: '/payload/intent' });
  }
  const left = Number(intent.amount_received) - Number(intent.amount_refunded);
  const amount = payload.amount ?? left;
  const tooLarge = () =>
    new ApiError('refund_too_large', `At most ${left} ${intent.currency} of ${intent.id} is left to refund; ${amount} was asked.`, {
      param: payload.amount !== undefined ? '/payload/amount' : '/payload/intent',
      details: { left, asked: amount },
    });
  if (amount < 1 || amount > left) throw tooLarge();
  const p = { mode: ctx.mode, entityId: ctx.entityId };
  const id = newId('re');
  // Intents made before refunds went through `refunding` lack that account.
  await openAccounts(ctx.db, p, intentAccounts(intent.id, intent.currency));
  try {
    // Taken from the intent first (locking only its accounts while the processor refunds), paid out to the
    // world after: the partition's shared world account is locked only for the end of the call.
    await postTransfer(ctx.db, p, { id: `refund:${id}`, currency: intent.currency, kind: 'refund', postings: [{ account: captured(intent.id), amount: -amount }, { account: refunding(intent.id), amount }] });
  } catch (error) {
    // Another refund of the same payment took what was left while this one waited for it.
    if (error instanceof OverdraftError) throw tooLarge();
    throw error;
  }
  const processor = processorOf(ctx);
  const { processorId } = await processorCall(() =>
    processor.refund({ intentId: intent.id, processorId: intent.processor_id!, amount, refundId: id, ...refundKey(ctx, id), signal: ctx.signal }),
  );
  await postTransfer(ctx.db, p, { id: `refund:${id}:paid`, currency: intent.currency, kind: 'refund', postings: [{ account: refunding(intent.id), amount: -amount }, { account: world(intent.currency), amount }] });
  await addRefunded(ctx.db, p, intent.id, amount);
  const row: PaymentRefundTable = {
    mode: ctx.mode,
    entity_id: ctx.entityId,
    id,
    intent_id: intent.id,
    amount,
    currency: intent.currency,
    reason: payload.reason ?? null,
    processor_id: processorId,
    created_at: new Date().toISOString(),
  };
  await insertRefund(ctx.db, row);
  const refund = toRefund(row);
  ctx.emit('payments.refund.succeeded', refund);
  return refund;
}
