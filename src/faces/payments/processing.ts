/**
 * Which processor serves a call, how its failures read, and the idempotency keys it is asked under: the
 * sandbox for test keys, Stripe for live keys when configured (503 `provider_unavailable` otherwise); a
 * processor's own failure (not a decline) is the platform's 502 `provider_failed`. A failure either
 * certainly changed nothing at the processor (it refused the request) or leaves in doubt whether it acted
 * (docs/calling.md § Idempotency): only the first may be undone here.
 */
import { createHash } from 'node:crypto';
import type { Providers } from '../../providers/index.js';
import type { HandlerContext } from '../../core/context.js';
import { ApiError, meaningOf, type ErrorTable } from '../../core/errors.js';
import type { PaymentProcessor } from '../../providers/payments/processor.js';
import type { Partition } from './ledger.js';

/** The processor of a mode: the sandbox for test keys, Stripe for live keys when configured. */
export function processorFor(processors: Providers['payments'], mode: Partition['mode']): PaymentProcessor | undefined {
  return mode === 'test' ? processors.test : processors.live;
}

/** The processor of the caller's mode, or 503 when live mode has none. */
export function processorOf(ctx: HandlerContext<never>): PaymentProcessor {
  const processor = processorFor(ctx.providers.payments, ctx.mode);
  if (!processor) throw new ApiError('provider_unavailable', 'No live payment processor is configured: set STRIPE_API_KEY.');
  return processor;
}

/** A processor's own failure (not a decline) as the platform's 502, its cause kept for the log. */
export async function processorCall<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw new ApiError('provider_failed', 'The payment processor failed; whether it acted is not known yet. Retry with the same idempotency key, or read the payment, to learn the outcome.', { cause: error });
  }
}

/**
 * Whether a failed request may have been acted on. It was not when the processor refused it: a caller's
 * mistake (a 400 in `errors`, the served catalogue's), or an answer of the 4xx class (`details.upstreamStatus`:
 * a rejected key or request, a rate limit), which Stripe gives before acting. 409 is another request with the
 * same key still running, and anything else (no answer, a time-out, a 5xx, a call cut short here) leaves it in
 * doubt. This holds for a processor key's first request only: a refusal of a request sent again says nothing
 * of the one before.
 */
export function inDoubt(error: unknown, errors: ErrorTable): boolean {
  if (!(error instanceof ApiError) || error.code === 'timeout' || error.code === 'request_aborted') return true;
  if (meaningOf(error, errors)?.status === 400) return false;
  const upstream = error.details?.upstreamStatus;
  return !(typeof upstream === 'number' && upstream >= 400 && upstream < 500 && upstream !== 409);
}

/** A digest of the partition: a processor such as Stripe scopes keys to its whole account, which entities share. */
const partitionDigest = (p: Partition) => createHash('sha256').update(`${p.mode}\u0000${p.entityId}`).digest('base64url').slice(0, 16);

/**
 * The processor's idempotency key of a move of an intent: the intent and its attempt, not the caller's key.
 * A confirmation in flight and asked again (a retry under the caller's key, the reconciler) asks the
 * processor the same question and gets its first answer, never a second charge. `attempt` counts the
 * confirmations the intent settled or gave up (a decline moves it on, so another card is another question).
 */
export function intentKey(p: Partition, intentId: string, attempt: number | string): { idempotencyKey: string } {
  return { idempotencyKey: `${partitionDigest(p)}:${intentId}:${attempt}` };
}

/** The processor's idempotency key of a refund: the refund, recorded before the processor is asked. */
export function refundKey(p: Partition, refundId: string): { idempotencyKey: string } {
  return { idempotencyKey: `${partitionDigest(p)}:${refundId}` };
}
