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

/**
 * The call's idempotency key as the processor gets it. The platform scopes a key to (API key, mode, entity);
 * a processor such as Stripe scopes it to its whole account, which several entities may share. So the key
 * is prefixed with a digest of that scope, and with the intent or refund it is for: the same for every retry
 * of the call, different across entities and across the requests of a batch.
 */
export function processorKey(ctx: HandlerContext<never>, objectId: string): { idempotencyKey?: string } {
  if (ctx.idempotencyKey === undefined) return {};
  const scope = createHash('sha256').update(`${ctx.key.id}\u0000${ctx.mode}\u0000${ctx.entityId}`).digest('base64url').slice(0, 16);
  // The object too: the requests of a batch share the batch's key, and each is its own processor call.
  return { idempotencyKey: `${scope}:${objectId}:${ctx.idempotencyKey}` };
}
