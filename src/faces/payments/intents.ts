/**
 * The life of a payment intent (Stripe's PaymentIntent states, docs/faces/payments.md § Payments). A confirmation is
 * recorded in flight (`processing`) before the processor is asked and settled by its answer
 * (confirmations.ts), so that no charge the processor may have made is ever forgotten here. A capture or a
 * cancel claims the intent with a conditional UPDATE from the state it starts from (the row stays locked
 * until the call commits), calls the processor under a key of the intent (a retry after a roll-back gets
 * its first answer), and posts the money and the outcome in the call's transaction. A declined
 * confirmation is kept (the intent records its error and goes back to `requires_payment_method`, the
 * failure event is sent) while the call answers 402 with the decline code.
 */
import type { PaymentsCreateIntentPayload, PaymentsIntent, PaymentsPaymentMethod } from '../../../generated/server/types.js';
import type { HandlerContext } from '../../core/context.js';
import { ApiError, invalidField } from '../../core/errors.js';
import type { Authorization, PaymentMethodInput, PaymentProcessor } from '../../providers/payments/processor.js';
import { openAccounts } from './ledger.js';
import { deleteIntent, deleteRecovery, getCustomer, getIntent, getRecovery, insertIntent, insertRecovery, moveIntent } from './store.js';
import type { Db } from '../../store/schema.js';
import type { IntentStatus, PaymentIntentTable } from './tables.js';
import { newId } from '../../store/secrets.js';
import { authorized, captured, intentAccounts, world } from './accounts.js';
import { answerOf, askToConfirm, post, settleConfirmation, type ConfirmationEvent } from './confirmations.js';
import { checkCurrency } from '../../core/money.js';
import { inDoubt, intentKey, processorCall, processorOf } from './processing.js';
import { toIntent } from './wire.js';

type Ctx<E extends ConfirmationEvent | 'payments.intent.canceled' = ConfirmationEvent> = HandlerContext<E>;

const partition = (ctx: Ctx<never>) => ({ mode: ctx.mode, entityId: ctx.entityId });

export async function loadIntent(ctx: Ctx<never>, id: string, param = '/payload/id'): Promise<PaymentIntentTable> {
  const row = await getIntent(ctx.db, partition(ctx), id);
  if (!row) throw new ApiError('resource_not_found', `No payment intent ${id}.`, { param });
  return row;
}

function stateError(row: PaymentIntentTable, action: string): ApiError {
  return new ApiError('intent_state_invalid', `Payment intent ${row.id} is ${row.status}; it cannot be ${action}.`, { details: { status: row.status } });
}

/**
 * Claims the intent for a move (locking it until the call commits), or refuses when it is not in `from`.
 * The claim is from the very state `row` was read in: had another call moved it meanwhile (a confirmation
 * that put it on hold while a cancel waited for the lock), the move would act on what it no longer is.
 */
async function claim(ctx: Ctx<never>, row: PaymentIntentTable, from: readonly IntentStatus[], action: string): Promise<void> {
  if (!from.includes(row.status) || !(await moveIntent(ctx.db, partition(ctx), row.id, [row.status], { status: 'processing' }))) {
    const now = (await getIntent(ctx.db, partition(ctx), row.id)) ?? row;
    throw stateError(now, action);
  }
}

/** Live payments take a processor's payment method id: card numbers never reach, or stay in, this API. */
function checkMethod(ctx: Ctx<never>, method: PaymentMethodInput, param: string): void {
  if (ctx.mode === 'live' && 'card' in method) {
    throw new ApiError('payment_method_invalid', 'Live payments take a payment method id (pm_…); card numbers go to the processor, never to this API.', { param });
  }
}

/** A payment method as it may be kept until the confirmation: never a card's security code. */
function storable(method: PaymentMethodInput): PaymentMethodInput {
  if (!('card' in method)) return method;
  const { cvc: _cvc, ...card } = method.card;
  return { card };
}

/**
 * Creates an intent, and confirms it when asked. A confirmation is recorded (the intent in flight,
 * `processing`) before the processor is asked, apart from the call's transaction, so that a call cut short
 * leaves it to a retry under the same idempotency key, which resumes it, or to the reconciler. `named` names
 * the intent instead of a new id, for a caller whose own transaction holds the intent (an invoice's payment:
 * tried again after a roll-back, it names the intent as the first time, so the processor's question is the
 * same).
 */
export async function createIntent(ctx: Ctx, payload: PaymentsCreateIntentPayload, named?: string): Promise<PaymentsIntent> {
  checkCurrency(payload.currency, '/payload/currency');
  if (payload.customer && !(await getCustomer(ctx.db, partition(ctx), payload.customer))) {
    throw new ApiError('resource_not_found', `No customer ${payload.customer}.`, { param: '/payload/customer' });
  }
  if (payload.confirm && !payload.paymentMethod) {
    throw new ApiError('payment_method_invalid', 'confirm: true needs a paymentMethod.', { param: '/payload/paymentMethod' });
  }
  if (payload.paymentMethod) checkMethod(ctx, payload.paymentMethod, '/payload/paymentMethod');
  const p = partition(ctx);
  const key = named === undefined && payload.confirm ? ctx.recoveryKey : undefined;
  const started = key !== undefined ? await getRecovery(ctx.db, p, key) : undefined;
  if (started !== undefined) return resume(ctx, started);
  const now = new Date().toISOString();
  const row: PaymentIntentTable = {
    mode: ctx.mode,
    entity_id: ctx.entityId,
    id: named ?? newId('pi'),
    amount: payload.amount,
    currency: payload.currency,
    status: payload.confirm ? 'processing' : payload.paymentMethod ? 'requires_confirmation' : 'requires_payment_method',
    capture_method: payload.captureMethod ?? 'automatic',
    customer_id: payload.customer ?? null,
    description: payload.description ?? null,
    metadata: payload.metadata ? JSON.stringify(payload.metadata) : null,
    payment_method: payload.paymentMethod ? JSON.stringify(storable(payload.paymentMethod)) : null,
    card_brand: null,
    card_last4: null,
    processor_id: null,
    amount_capturable: 0,
    amount_received: 0,
    amount_refunded: 0,
    last_error_code: null,
    last_error_message: null,
    cancellation_reason: null,
    attempts: 0,
    created_at: now,
    updated_at: now,
  };
  if (!payload.confirm) {
    await insertIntent(ctx.db, row);
    await openAccounts(ctx.db, p, intentAccounts(row.id, row.currency));
    return toIntent(row);
  }
  const processor = processorOf(ctx);
  if (named !== undefined) {
    await insertIntent(ctx.db, row);
    return confirmRecorded(ctx, processor, row);
  }
  await ctx.startOutsideEffect(async (db) => {
    await insertIntent(db, row);
    if (key !== undefined) await insertRecovery(db, { mode: ctx.mode, entity_id: ctx.entityId, recovery_key: key, object_id: row.id, created_at: now });
  });
  return confirmRecorded(ctx, processor, row, async (db) => {
    await deleteIntent(db, p, row.id);
    if (key !== undefined) await deleteRecovery(db, p, key);
  });
}

/** The states a confirmation starts from. */
const CONFIRMABLE: readonly IntentStatus[] = ['requires_payment_method', 'requires_confirmation'];

/** Confirms an intent; under the idempotency key of a confirmation in flight, resumes it. */
export async function confirmIntent(ctx: Ctx, id: string, given: PaymentsPaymentMethod | undefined): Promise<PaymentsIntent> {
  const p = partition(ctx);
  const key = ctx.recoveryKey;
  if (key !== undefined && (await getRecovery(ctx.db, p, key)) === id) return resume(ctx, id);
  const row = await loadIntent(ctx, id);
  const method = (given ?? (row.payment_method !== null ? JSON.parse(row.payment_method) : undefined)) as PaymentMethodInput | undefined;
  if (!method) throw new ApiError('payment_method_invalid', `Payment intent ${row.id} has no payment method: give one.`, { param: '/payload/paymentMethod' });
  checkMethod(ctx, method, '/payload/paymentMethod');
  const processor = processorOf(ctx);
  if (!CONFIRMABLE.includes(row.status)) throw stateError(row, 'confirmed');
  const recorded: PaymentIntentTable = { ...row, status: 'processing', payment_method: JSON.stringify(storable(method)) };
  await ctx.startOutsideEffect(async (db) => {
    // Claimed from the very state it was read in: had another call moved it meanwhile, this one would act
    // on what it no longer is.
    if (!(await moveIntent(db, p, id, [row.status], { status: 'processing', payment_method: recorded.payment_method }))) {
      throw stateError((await getIntent(db, p, id)) ?? row, 'confirmed');
    }
    if (key !== undefined) await insertRecovery(db, { mode: ctx.mode, entity_id: ctx.entityId, recovery_key: key, object_id: id, created_at: new Date().toISOString() });
  });
  return confirmRecorded(ctx, processor, recorded, async (db) => {
    // As it was, but for the attempt: the processor's key of this one is spent.
    await moveIntent(db, p, id, ['processing'], { status: row.status, payment_method: row.payment_method, attempts: Number(row.attempts) + 1 });
    if (key !== undefined) await deleteRecovery(db, p, key);
  });
}

/**
 * Asks the processor to confirm an intent recorded in flight and settles it with the answer, in the call's
 * transaction. When the processor refused before acting, `undo` (the call that recorded it) puts back what
 * the call recorded, and the call fails as one that changed nothing; any other failure leaves the
 * confirmation in flight.
 */
async function confirmRecorded(ctx: Ctx, processor: PaymentProcessor, row: PaymentIntentTable, undo?: (db: Db) => Promise<void>): Promise<PaymentsIntent> {
  const p = partition(ctx);
  let auth: Authorization;
  try {
    auth = await askToConfirm(processor, p, row, ctx.signal);
  } catch (error) {
    if (undo && !inDoubt(error, ctx.catalogue.errors)) await ctx.dropOutsideEffect(undo);
    throw error;
  }
  const settled = await settleConfirmation(ctx.db, p, row, auth, (type, intent) => ctx.emit(type, intent));
  return answerOf(settled, '/payload/paymentMethod');
}

/**
 * The retry of a call that started a confirmation: asks the processor again while it is in flight (a
 * refusal now says nothing of the first request, so nothing is undone), or answers how it was settled.
 */
async function resume(ctx: Ctx, id: string): Promise<PaymentsIntent> {
  const row = await loadIntent(ctx, id);
  if (row.status !== 'processing') return answerOf(row, '/payload/paymentMethod');
  const processor = processorOf(ctx);
  await ctx.startOutsideEffect();
  return confirmRecorded(ctx, processor, row);
}

export async function captureIntent(ctx: Ctx<'payments.intent.succeeded'>, id: string, amountToCapture: number | undefined): Promise<PaymentsIntent> {
  const row = await loadIntent(ctx, id);
  const held = Number(row.amount_capturable);
  const amount = amountToCapture ?? held;
  if (row.status === 'requires_capture' && amount > held) {
    throw invalidField('/payload/amountToCapture', `at most ${held} can be captured`, 'maximum');
  }
  const processor = processorOf(ctx);
  await claim(ctx, row, ['requires_capture'], 'captured');
  await processorCall(() =>
    processor.capture({ intentId: row.id, processorId: row.processor_id!, amount, ...intentKey(ctx, row.id, 'capture'), signal: ctx.signal }),
  );
  const p = partition(ctx);
  // The hold ends: what is captured is charged, the rest goes back.
  const postings = [{ account: authorized(row.id), amount: -held }, { account: captured(row.id), amount }];
  if (held > amount) postings.push({ account: world(row.currency), amount: held - amount });
  await post(ctx.db, p, { id: `capture:${row.id}`, currency: row.currency, kind: 'capture', postings });
  await moveIntent(ctx.db, p, row.id, ['processing'], { status: 'succeeded', amount_capturable: 0, amount_received: amount });
  const intent = toIntent((await getIntent(ctx.db, p, row.id))!);
  ctx.emit('payments.intent.succeeded', intent);
  return intent;
}

export async function cancelIntent(ctx: Ctx<'payments.intent.canceled'>, id: string, reason: string | undefined): Promise<PaymentsIntent> {
  const row = await loadIntent(ctx, id);
  const p = partition(ctx);
  await claim(ctx, row, ['requires_payment_method', 'requires_confirmation', 'requires_capture'], 'canceled');
  if (row.status === 'requires_capture') {
    const processor = processorOf(ctx);
    await processorCall(() =>
      processor.cancel({ intentId: row.id, processorId: row.processor_id!, ...intentKey(ctx, row.id, 'cancel'), signal: ctx.signal }),
    );
    const held = Number(row.amount_capturable);
    await post(ctx.db, p, { id: `release:${row.id}`, currency: row.currency, kind: 'release', postings: [{ account: authorized(row.id), amount: -held }, { account: world(row.currency), amount: held }] });
  }
  await moveIntent(ctx.db, p, row.id, ['processing'], { status: 'canceled', amount_capturable: 0, cancellation_reason: reason ?? null });
  const intent = toIntent((await getIntent(ctx.db, p, row.id))!);
  ctx.emit('payments.intent.canceled', intent);
  return intent;
}
