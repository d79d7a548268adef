/**
 * Which processor serves a call, and how its failures read: the sandbox for test keys, Stripe for live keys
 * when configured (503 `provider_unavailable` otherwise); a processor's own failure (not a decline) is the
 * platform's 502 `provider_failed`, retryable with the same idempotency key, which the processor dedupes.
 */
import { createHash } from 'node:crypto';
import type { HandlerContext } from '../runtime/context.js';
import { ApiError } from '../runtime/errors.js';
import type { PaymentProcessor } from '../providers/payments/processor.js';

/** The processor of the caller's mode: the sandbox for test keys, Stripe for live keys when configured. */
export function processorOf(ctx: HandlerContext<never>): PaymentProcessor {
  const processor = ctx.mode === 'test' ? ctx.providers.payments.test : ctx.providers.payments.live;
  if (!processor) throw new ApiError('provider_unavailable', 'No live payment processor is configured: set STRIPE_API_KEY.');
  return processor;
}

/** A processor's own failure (not a decline) as the platform's 502, its cause kept for the log. */
export async function processorCall<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw new ApiError('provider_failed', 'The payment processor failed; the intent is left as it was here. Read it (getIntent) before trying again.', { cause: error });
  }
}

/** A digest of the partition: a processor such as Stripe scopes keys to its whole account, which entities share. */
const partitionDigest = (ctx: HandlerContext<never>) => createHash('sha256').update(`${ctx.mode}\u0000${ctx.entityId}`).digest('base64url').slice(0, 16);

/**
 * The processor's idempotency key of a move of an intent: the intent and its attempt, not the caller's key.
 * A confirmation cut short by its time-out (rolled back here, maybe charged there) and tried again, under any
 * key or none, asks the processor the same question again and gets its first answer, never a second charge.
 * `attempt` counts the confirmations the intent answered (a decline moves it on, so another card is another
 * question).
 */
export function intentKey(ctx: HandlerContext<never>, intentId: string, attempt: number | string): { idempotencyKey: string } {
  return { idempotencyKey: `${partitionDigest(ctx)}:${intentId}:${attempt}` };
}

/**
 * The processor's idempotency key of a refund: the caller's key (a refund has no identity of its own before
 * it is made), with the refund's id so that the requests of a batch, which share the batch's key, stay apart.
 */
export function refundKey(ctx: HandlerContext<never>, refundId: string): { idempotencyKey?: string } {
  if (ctx.idempotencyKey === undefined) return {};
  return { idempotencyKey: `${partitionDigest(ctx)}:${refundId}:${ctx.idempotencyKey}` };
}
