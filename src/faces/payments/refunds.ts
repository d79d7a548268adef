/**
 * Refunds (docs/faces/payments.md § Payments): all or part of what an intent charged and has not refunded yet. The ledger
 * decides: the refund moves money out of the intent's no-overdraft `captured` account into `refunding`,
 * whose row is locked until that commits, so concurrent refunds are decided one after another and together
 * never exceed the capture. That move and the refund, `processing`, are recorded before the processor is
 * asked, apart from the call's transaction (docs/calling.md § Idempotency): a call cut short leaves the refund to a
 * retry under the same idempotency key, which asks the processor again under the same key, or to the
 * reconciler. Its answer settles the refund once: the money leaves for the world, or goes back to
 * `captured` when the processor refused the refund before acting.
 */
import type { PaymentsCreateRefundPayload, PaymentsRefund } from '../../../generated/server/types.js';
import type { PaymentProcessor } from '../../providers/payments/processor.js';
import type { HandlerContext } from '../../core/context.js';
import { ApiError } from '../../core/errors.js';
import { OverdraftError, openAccounts, postTransfer, type Partition } from './ledger.js';
import { addRefunded, deleteRecovery, getRecovery, getRefund, insertRecovery, insertRefund, settleRefundRow } from './store.js';
import type { Db } from '../../store/schema.js';
import type { PaymentRefundTable } from './tables.js';
import { newId } from '../../store/secrets.js';
import { captured, intentAccounts, refunding, world } from './accounts.js';
import { loadIntent } from './intents.js';
import { inDoubt, processorCall, processorOf, refundKey } from './processing.js';
import { toRefund } from './wire.js';

type Ctx = HandlerContext<'payments.refund.succeeded'>;
export type EmitRefund = (type: 'payments.refund.succeeded', refund: PaymentsRefund) => void;

export async function createRefund(ctx: Ctx, payload: PaymentsCreateRefundPayload): Promise<PaymentsRefund> {
  const p = { mode: ctx.mode, entityId: ctx.entityId };
  const key = ctx.recoveryKey;
  const started = key !== undefined ? await getRecovery(ctx.db, p, key) : undefined;
  if (started !== undefined) return resume(ctx, started);
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
  const processor = processorOf(ctx);
  const row: PaymentRefundTable = {
    mode: ctx.mode,
    entity_id: ctx.entityId,
    id: newId('re'),
    intent_id: intent.id,
    amount,
    currency: intent.currency,
    reason: payload.reason ?? null,
    status: 'processing',
    processor_id: null,
    created_at: new Date().toISOString(),
  };
  await ctx.startOutsideEffect(async (db) => {
    // Intents made before refunds went through `refunding` lack that account.
    await openAccounts(db, p, intentAccounts(intent.id, intent.currency));
    try {
      await postTransfer(db, p, { id: `refund:${row.id}`, currency: row.currency, kind: 'refund', postings: [{ account: captured(intent.id), amount: -amount }, { account: refunding(intent.id), amount }] });
    } catch (error) {
      // Another refund of the same payment took what was left while this one waited for it.
      throw error instanceof OverdraftError ? tooLarge() : error;
    }
    await insertRefund(db, row);
    if (key !== undefined) await insertRecovery(db, { mode: ctx.mode, entity_id: ctx.entityId, recovery_key: key, object_id: row.id, created_at: row.created_at });
  });
  let processorId: string;
  try {
    processorId = await askToRefund(processor, p, row, intent.processor_id!, ctx.signal);
  } catch (error) {
    // Refused before the processor acted: the money goes back, and the call changed nothing.
    if (!inDoubt(error, ctx.catalogue.errors)) {
      await ctx.dropOutsideEffect(async (db) => {
        await returnRefund(db, p, row);
        if (key !== undefined) await deleteRecovery(db, p, key);
      });
    }
    throw error;
  }
  return answerOf(await settleRefund(ctx.db, p, row, processorId, (type, refund) => ctx.emit(type, refund)));
}

/**
 * The retry of a call that started a refund: asks the processor again while it is in flight (a refusal now
 * says nothing of the first request, so nothing is undone), or answers how it was settled.
 */
async function resume(ctx: Ctx, id: string): Promise<PaymentsRefund> {
  const p = { mode: ctx.mode, entityId: ctx.entityId };
  const row = (await getRefund(ctx.db, p, id))!;
  if (row.status !== 'processing') return answerOf(row);
  const intent = await loadIntent(ctx, row.intent_id, '/payload/intent');
  const processor = processorOf(ctx);
  await ctx.startOutsideEffect();
  const processorId = await askToRefund(processor, p, row, intent.processor_id!, ctx.signal);
  return answerOf(await settleRefund(ctx.db, p, row, processorId, (type, refund) => ctx.emit(type, refund)));
}

/** Asks the processor for a refund recorded in flight, under the refund's own key; its refund id. */
export async function askToRefund(processor: PaymentProcessor, p: Partition, row: PaymentRefundTable, paymentId: string, signal?: AbortSignal): Promise<string> {
  const amount = Number(row.amount);
  const made = await processorCall(() =>
    processor.refund({ intentId: row.intent_id, processorId: paymentId, amount, refundId: row.id, ...refundKey(p, row.id), ...(signal ? { signal } : {}) }),
  );
  return made.processorId;
}

/**
 * Settles a refund in flight that the processor made: the money leaves for the world and the intent counts
 * it refunded. Returns the refund as it is then; when another settled it first, as that one left it.
 */
export async function settleRefund(db: Db, p: Partition, row: PaymentRefundTable, processorId: string, emit: EmitRefund): Promise<PaymentRefundTable> {
  if (!(await settleRefundRow(db, p, row.id, { status: 'succeeded', processor_id: processorId }))) return (await getRefund(db, p, row.id))!;
  const amount = Number(row.amount);
  await postTransfer(db, p, { id: `refund:${row.id}:paid`, currency: row.currency, kind: 'refund', postings: [{ account: refunding(row.intent_id), amount: -amount }, { account: world(row.currency), amount }] });
  await addRefunded(db, p, row.intent_id, amount);
  const settled: PaymentRefundTable = { ...row, status: 'succeeded', processor_id: processorId };
  emit('payments.refund.succeeded', toRefund(settled));
  return settled;
}

/** A refund the processor refused before acting: failed, and its money back in `captured`. */
async function returnRefund(db: Db, p: Partition, row: PaymentRefundTable): Promise<void> {
  if (!(await settleRefundRow(db, p, row.id, { status: 'failed' }))) return;
  const amount = Number(row.amount);
  await postTransfer(db, p, { id: `refund:${row.id}:returned`, currency: row.currency, kind: 'refund', postings: [{ account: refunding(row.intent_id), amount: -amount }, { account: captured(row.intent_id), amount }] });
}

/** What the call that asked for the refund answers once it is settled. */
function answerOf(row: PaymentRefundTable): PaymentsRefund {
  if (row.status === 'succeeded') return toRefund(row);
  throw new ApiError('provider_failed', `The processor refused refund ${row.id}; nothing was refunded.`, { details: { refund: row.id } });
}
