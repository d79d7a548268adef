/**
 * A confirmation in flight: an intent recorded as `processing`, with the payment method and attempt it is
 * confirmed with, before the processor is asked (docs/calling.md § Idempotency). Asking again, whoever asks (the
 * call, its retry under the same idempotency key, the reconciler), sends the same request under the same
 * processor key and gets the processor's first answer; settling it is a conditional move out of
 * `processing`, so the answer moves the intent and its money once, however many ask.
 */
import type { PaymentsIntent } from '../../../generated/server/types.js';
import type { Authorization, DeclineCode, PaymentMethodInput, PaymentProcessor } from '../../providers/payments/processor.js';
import { ApiError } from '../../core/errors.js';
import { openAccounts, postTransfer, type Partition, type Transfer } from './ledger.js';
import { getIntent, moveIntent } from './store.js';
import type { Db } from '../../store/schema.js';
import type { PaymentIntentTable } from './tables.js';
import { authorized, captured, intentAccounts, world } from './accounts.js';
import { intentKey, processorCall } from './processing.js';
import { toIntent } from './wire.js';

export type ConfirmationEvent = 'payments.intent.succeeded' | 'payments.intent.failed' | 'payments.intent.capturable';
export type EmitIntent = (type: ConfirmationEvent, intent: PaymentsIntent) => void;

/** Asks the processor to confirm an intent in flight, with what was recorded for it. */
export function askToConfirm(processor: PaymentProcessor, p: Partition, row: PaymentIntentTable, signal?: AbortSignal): Promise<Authorization> {
  return processorCall(() =>
    processor.confirm({
      intentId: row.id,
      amount: Number(row.amount),
      currency: row.currency,
      captureMethod: row.capture_method,
      paymentMethod: JSON.parse(row.payment_method!) as PaymentMethodInput,
      ...intentKey(p, row.id, Number(row.attempts)),
      ...(signal ? { signal } : {}),
    }),
  );
}

/**
 * Settles the confirmation of `row` (as recorded in flight) with the processor's answer: a decline is kept
 * on the intent (its error, back to `requires_payment_method`), a charge or hold moves the money. Returns
 * the intent as it is then; when another settled it first, as that one left it, and nothing moves again.
 */
export async function settleConfirmation(db: Db, p: Partition, row: PaymentIntentTable, auth: Authorization, emit: EmitIntent): Promise<PaymentIntentTable> {
  const attempts = Number(row.attempts) + 1;
  const card = auth.card ? { card_brand: auth.card.brand, card_last4: auth.card.last4 } : {};
  const read = async () => (await getIntent(db, p, row.id))!;
  if (auth.outcome === 'declined') {
    const changes = { status: 'requires_payment_method', attempts, payment_method: null, last_error_code: auth.declineCode, last_error_message: auth.message, ...card } as const;
    if (!(await moveIntent(db, p, row.id, ['processing'], changes))) return read();
    const settled = await read();
    emit('payments.intent.failed', toIntent(settled));
    return settled;
  }
  const amount = Number(row.amount);
  const cleared = { payment_method: null, last_error_code: null, last_error_message: null, processor_id: auth.processorId, attempts, ...card };
  const held = auth.outcome === 'requires_capture';
  const changes = held ? { status: 'requires_capture', amount_capturable: amount, ...cleared } as const : { status: 'succeeded', amount_received: amount, ...cleared } as const;
  if (!(await moveIntent(db, p, row.id, ['processing'], changes))) return read();
  await openAccounts(db, p, intentAccounts(row.id, row.currency));
  const into = held ? authorized(row.id) : captured(row.id);
  await post(db, p, { id: `${held ? 'authorize' : 'capture'}:${row.id}`, currency: row.currency, kind: held ? 'authorize' : 'capture', postings: [{ account: world(row.currency), amount: -amount }, { account: into, amount }] });
  const settled = await read();
  emit(held ? 'payments.intent.capturable' : 'payments.intent.succeeded', toIntent(settled));
  return settled;
}

/**
 * What the call that confirmed answers once the confirmation is settled: the intent, or its decline as
 * 402 with the decline code (kept on the intent, so the answer keeps the call's effects).
 */
export function answerOf(row: PaymentIntentTable, param: string): PaymentsIntent {
  // Only a decline writes an error on an intent, and the next confirmation clears it.
  if (row.status === 'requires_payment_method' && row.last_error_code !== null) {
    const declineCode = row.last_error_code as DeclineCode;
    throw new ApiError(declineCode, row.last_error_message ?? undefined, { param, details: { declineCode, intent: row.id }, keepEffects: true });
  }
  return toIntent(row);
}

/** Posts one of an intent's transfers; each is posted once per intent, so a duplicate is a fault here. */
export async function post(db: Db, p: Partition, transfer: Transfer): Promise<void> {
  if ((await postTransfer(db, p, transfer)) !== 'posted') throw new Error(`Transfer ${transfer.id} was posted before.`);
}
