/**
 * The life of a payment intent (Stripe's PaymentIntent states, API.md §14). Each move claims the intent with
 * a conditional UPDATE from the states it starts from (the row stays locked until the call commits), calls
 * the processor, posts the money to the ledger and records the outcome, all in the call's transaction: an
 * intent is charged once however many calls race for it, and a failed call leaves no posting and no event.
 * A declined confirmation is kept (the intent records its error and goes back to `requires_payment_method`,
 * the failure event is sent) while the call answers 402 with the decline code.
 */
import type { PaymentsCreateIntentPayload, PaymentsIntent, PaymentsPaymentMethod } from '../../generated/server/types.js';
import type { HandlerContext } from '../runtime/context.js';
import { ApiError, invalidField } from '../runtime/errors.js';
import type { Authorization, PaymentMethodInput } from '../providers/payments/processor.js';
import { openAccounts, postTransfer, type Transfer } from '../store/ledger.js';
import { getCustomer, getIntent, insertIntent, moveIntent } from '../store/payments.js';
import type { IntentStatus, PaymentIntentTable } from '../store/schema.js';
import { newId } from '../store/secrets.js';
import { authorized, captured, intentAccounts, world } from './accounts.js';
import { checkCurrency } from './money.js';
import { intentKey, processorCall, processorOf } from './processing.js';
import { toIntent } from './wire.js';

type IntentEvents = 'payments.intent.succeeded' | 'payments.intent.failed' | 'payments.intent.capturable' | 'payments.intent.canceled';
type Ctx<E extends IntentEvents = IntentEvents> = HandlerContext<E>;

const partition = (ctx: Ctx<never>) => ({ mode: ctx.mode, entityId: ctx.entityId });

/** Posts one of an intent's transfers; each is posted once per intent, so a duplicate is a fault here. */
async function move(ctx: Ctx<never>, transfer: Transfer): Promise<void> {
  if ((await postTransfer(ctx.db, partition(ctx), transfer)) !== 'posted') throw new Error(`Transfer ${transfer.id} was posted before.`);
}

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
 * Creates an intent, and confirms it when asked. `id` names it instead of a new id: a caller that must ask
 * the processor the same question again after a rolled-back attempt (an invoice's payment) names the intent
 * as it did the first time, so the processor's idempotency key and request are the same.
 */
export async function createIntent(
  ctx: Ctx<'payments.intent.succeeded' | 'payments.intent.failed' | 'payments.intent.capturable'>,
  payload: PaymentsCreateIntentPayload,
  id = newId('pi'),
): Promise<PaymentsIntent> {
  checkCurrency(payload.currency, '/payload/currency');
  if (payload.customer && !(await getCustomer(ctx.db, partition(ctx), payload.customer))) {
    throw new ApiError('resource_not_found', `No customer ${payload.customer}.`, { param: '/payload/customer' });
  }
  if (payload.confirm && !payload.paymentMethod) {
    throw new ApiError('payment_method_invalid', 'confirm: true needs a paymentMethod.', { param: '/payload/paymentMethod' });
  }
  if (payload.paymentMethod) checkMethod(ctx, payload.paymentMethod, '/payload/paymentMethod');
  const now = new Date().toISOString();
  const row: PaymentIntentTable = {
    mode: ctx.mode,
    entity_id: ctx.entityId,
    id,
    amount: payload.amount,
    currency: payload.currency,
    status: payload.paymentMethod ? 'requires_confirmation' : 'requires_payment_method',
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
  await insertIntent(ctx.db, row);
  await openAccounts(ctx.db, partition(ctx), intentAccounts(row.id, row.currency));
  return payload.confirm ? confirm(ctx, row, undefined, '/payload/paymentMethod') : toIntent(row);
}

export async function confirmIntent(
  ctx: Ctx<'payments.intent.succeeded' | 'payments.intent.failed' | 'payments.intent.capturable'>,
  id: string,
  paymentMethod: PaymentsPaymentMethod | undefined,
): Promise<PaymentsIntent> {
  return confirm(ctx, await loadIntent(ctx, id), paymentMethod, '/payload/paymentMethod');
}

async function confirm(
  ctx: Ctx<'payments.intent.succeeded' | 'payments.intent.failed' | 'payments.intent.capturable'>,
  row: PaymentIntentTable,
  given: PaymentsPaymentMethod | undefined,
  param: string,
): Promise<PaymentsIntent> {
  const method = (given ?? (row.payment_method !== null ? JSON.parse(row.payment_method) : undefined)) as PaymentMethodInput | undefined;
  if (!method) throw new ApiError('payment_method_invalid', `Payment intent ${row.id} has no payment method: give one.`, { param });
  checkMethod(ctx, method, param);
  const processor = processorOf(ctx);
  await claim(ctx, row, ['requires_payment_method', 'requires_confirmation'], 'confirmed');
  const amount = Number(row.amount);
  const auth: Authorization = await processorCall(() =>
    processor.confirm({
      intentId: row.id,
      amount,
      currency: row.currency,
      captureMethod: row.capture_method,
      paymentMethod: method,
      ...intentKey(ctx, row.id, Number(row.attempts)),
      signal: ctx.signal,
    }),
  );
  const card = auth.card ? { card_brand: auth.card.brand, card_last4: auth.card.last4 } : {};
  const p = partition(ctx);
  if (auth.outcome === 'declined') {
    await moveIntent(ctx.db, p, row.id, ['processing'], {
      status: 'requires_payment_method',
      attempts: Number(row.attempts) + 1,
      payment_method: null,
      last_error_code: auth.declineCode,
      last_error_message: auth.message,
      ...card,
    });
    const intent = toIntent((await getIntent(ctx.db, p, row.id))!);
    ctx.emit('payments.intent.failed', intent);
    throw new ApiError(auth.declineCode, auth.message, { param, details: { declineCode: auth.declineCode, intent: intent.id }, keepEffects: true });
  }
  const cleared = { payment_method: null, last_error_code: null, last_error_message: null, processor_id: auth.processorId, attempts: Number(row.attempts) + 1, ...card };
  if (auth.outcome === 'requires_capture') {
    await move(ctx, { id: `authorize:${row.id}`, currency: row.currency, kind: 'authorize', postings: [{ account: world(row.currency), amount: -amount }, { account: authorized(row.id), amount }] });
    await moveIntent(ctx.db, p, row.id, ['processing'], { status: 'requires_capture', amount_capturable: amount, ...cleared });
    const intent = toIntent((await getIntent(ctx.db, p, row.id))!);
    ctx.emit('payments.intent.capturable', intent);
    return intent;
  }
  await move(ctx, { id: `capture:${row.id}`, currency: row.currency, kind: 'capture', postings: [{ account: world(row.currency), amount: -amount }, { account: captured(row.id), amount }] });
  await moveIntent(ctx.db, p, row.id, ['processing'], { status: 'succeeded', amount_received: amount, ...cleared });
  const intent = toIntent((await getIntent(ctx.db, p, row.id))!);
  ctx.emit('payments.intent.succeeded', intent);
  return intent;
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
  await move(ctx, { id: `capture:${row.id}`, currency: row.currency, kind: 'capture', postings });
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
    await move(ctx, { id: `release:${row.id}`, currency: row.currency, kind: 'release', postings: [{ account: authorized(row.id), amount: -held }, { account: world(row.currency), amount: held }] });
  }
  await moveIntent(ctx.db, p, row.id, ['processing'], { status: 'canceled', amount_capturable: 0, cancellation_reason: reason ?? null });
  const intent = toIntent((await getIntent(ctx.db, p, row.id))!);
  ctx.emit('payments.intent.canceled', intent);
  return intent;
}
