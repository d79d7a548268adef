/**
 * What the `payments` face asks of a payment processor (docs/contract.md § Payments and billing): authorize or charge an amount on a
 * payment method, capture, cancel and refund. Test mode uses the deterministic sandbox (its card numbers
 * choose the outcome); live mode uses Stripe when `STRIPE_API_KEY` is set. Amounts are integer minor units
 * of a lower-case ISO 4217 currency. Each call carries the idempotency key the face chose for it
 * (src/faces/payments/processing.ts), so a call tried again is never charged twice by the processor either. A
 * failure is an ApiError; one the processor answered with an HTTP status carries it as
 * `details.upstreamStatus`, by which the face tells a refusal before acting (4xx) from a failure that leaves
 * it unknown whether the processor acted.
 */

/** A card as the sandbox takes it (test mode only: live mode never sees raw card numbers). */
export interface CardDetails {
  number: string;
  expMonth: number;
  expYear: number;
  cvc?: string;
}

/** A card (test mode), or a payment method the processor already holds (`pm_…`, live mode). */
export type PaymentMethodInput = { card: CardDetails } | { id: string };

/** Why a processor refused a payment: the decline codes of docs/contract.md § Errors (402 `payment_error`). */
export type DeclineCode = 'card_declined' | 'insufficient_funds' | 'expired_card' | 'processing_error';

/** What a processor says of a payment method it charged or refused. */
export interface CardSummary {
  brand: string;
  last4: string;
}

export type Authorization =
  /** Charged (automatic capture) or held for a later capture (manual capture). */
  | { outcome: 'succeeded' | 'requires_capture'; processorId: string; card?: CardSummary }
  | { outcome: 'declined'; declineCode: DeclineCode; message: string; card?: CardSummary };

interface Call {
  /** The platform's intent id (`pi_…`). */
  intentId: string;
  /** The processor's idempotency key of this call: the same for every retry of the same question. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export interface PaymentProcessor {
  /** Authorizes `amount`, and captures it at once when `captureMethod` is `automatic`. */
  confirm(input: Call & { amount: number; currency: string; captureMethod: 'automatic' | 'manual'; paymentMethod: PaymentMethodInput }): Promise<Authorization>;
  /** Captures `amount` (at most what was authorized) of a held payment. */
  capture(input: Call & { processorId: string; amount: number }): Promise<void>;
  /** Releases a held payment. */
  cancel(input: Call & { processorId: string }): Promise<void>;
  /** Refunds `amount` of a captured payment; returns the processor's refund id. */
  refund(input: Call & { processorId: string; amount: number; refundId: string }): Promise<{ processorId: string }>;
}
