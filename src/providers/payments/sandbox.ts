/**
 * The test-mode payment processor: no network, no money, and the same answer every time. Stripe's test card
 * numbers and test payment methods (`pm_card_…`) choose the outcome, with Stripe's decline codes and
 * messages, so code written against test mode meets the same declines in live mode. Any other number that
 * passes the Luhn check succeeds; capture, cancel and refund always succeed, because the face has already
 * checked the intent's state and amounts before it calls.
 */
import type { CardDetails, CardSummary, DeclineCode, PaymentMethodInput, PaymentProcessor } from './processor.js';

export interface SandboxOptions {
  /** The clock that decides whether an expiry date has passed; tests pin it. */
  now?: () => Date;
}

interface Decline {
  declineCode: DeclineCode;
  message: string;
}

// Stripe's own messages for these declines, so a test-mode answer reads like the live one.
const DECLINED: Decline = { declineCode: 'card_declined', message: 'Your card was declined.' };
const INSUFFICIENT_FUNDS: Decline = { declineCode: 'insufficient_funds', message: 'Your card has insufficient funds.' };
const EXPIRED: Decline = { declineCode: 'expired_card', message: 'Your card has expired.' };
const PROCESSING_ERROR: Decline = {
  declineCode: 'processing_error',
  message: 'An error occurred while processing your card. Try again in a little bit.',
};

/** Stripe's test card numbers that decline (docs/contract.md § Payments and billing lists four; 0069 is Stripe's expired card). */
const DECLINING_CARDS = new Map<string, Decline>([
  ['4000000000000002', DECLINED],
  ['4000000000009995', INSUFFICIENT_FUNDS],
  ['4000000000000069', EXPIRED],
  ['4000000000000119', PROCESSING_ERROR],
]);

/** Stripe's test payment methods, as the card number each stands for. */
const TEST_PAYMENT_METHODS = new Map<string, string>([
  ['pm_card_visa', '4242424242424242'],
  ['pm_card_mastercard', '5555555555554444'],
  ['pm_card_chargeDeclined', '4000000000000002'],
  ['pm_card_chargeDeclinedInsufficientFunds', '4000000000009995'],
  ['pm_card_chargeDeclinedExpiredCard', '4000000000000069'],
  ['pm_card_chargeDeclinedProcessingError', '4000000000000119'],
]);

/** Creates a sandbox; `sandboxProcessor` is the one with the real clock. */
export function createSandboxProcessor(options: SandboxOptions = {}): PaymentProcessor {
  const now = options.now ?? (() => new Date());
  return {
    async confirm(input) {
      input.signal?.throwIfAborted();
      const result = judge(input.paymentMethod, now());
      if ('declineCode' in result) return { outcome: 'declined', ...result };
      return {
        outcome: input.captureMethod === 'automatic' ? 'succeeded' : 'requires_capture',
        processorId: `sandbox_${input.intentId}`,
        card: result.card,
      };
    },
    async capture(input) {
      input.signal?.throwIfAborted();
    },
    async cancel(input) {
      input.signal?.throwIfAborted();
    },
    async refund(input) {
      input.signal?.throwIfAborted();
      return { processorId: `sandbox_${input.refundId}` };
    },
  };
}

/** The sandbox that test-mode keys get. */
export const sandboxProcessor: PaymentProcessor = createSandboxProcessor();

type Judgement = { card: CardSummary } | (Decline & { card?: CardSummary });

function judge(method: PaymentMethodInput, today: Date): Judgement {
  if ('card' in method) return judgeCard(method.card, today);
  const number = TEST_PAYMENT_METHODS.get(method.id);
  if (number === undefined) {
    return {
      declineCode: 'card_declined',
      message: `No such test payment method "${method.id}". Test mode takes ${[...TEST_PAYMENT_METHODS.keys()].join(', ')}, or card details.`,
    };
  }
  // A test payment method has no expiry of its own: Stripe's never expire unless they are the expired card.
  return judgeNumber(number);
}

function judgeCard(card: CardDetails, today: Date): Judgement {
  // People paste numbers as printed on the card; Stripe's forms accept the spaces too.
  const number = card.number.replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(number) || !passesLuhn(number)) {
    return { declineCode: 'card_declined', message: 'Your card number is invalid: it is not a valid card number.' };
  }
  const summary = summarize(number);
  if (!Number.isInteger(card.expMonth) || card.expMonth < 1 || card.expMonth > 12) {
    return { declineCode: 'card_declined', message: "Your card's expiration month is invalid.", card: summary };
  }
  if (isPast(card.expMonth, card.expYear, today)) return { ...EXPIRED, card: summary };
  return judgeNumber(number);
}

function judgeNumber(number: string): Judgement {
  const card = summarize(number);
  const decline = DECLINING_CARDS.get(number);
  return decline ? { ...decline, card } : { card };
}

/** A card is good through the last day of its expiry month; two-digit years are this century's. */
function isPast(month: number, year: number, today: Date): boolean {
  const fullYear = year < 100 ? 2000 + year : year;
  const thisMonth = today.getUTCFullYear() * 12 + today.getUTCMonth();
  return fullYear * 12 + (month - 1) < thisMonth;
}

function summarize(number: string): CardSummary {
  return { brand: cardBrand(number), last4: number.slice(-4) };
}

/** The card network a number belongs to, by its prefix (the brands Stripe reports for cards we accept). */
export function cardBrand(number: string): 'visa' | 'mastercard' | 'amex' | 'unknown' {
  if (number.startsWith('4')) return 'visa';
  const two = Number(number.slice(0, 2));
  const four = Number(number.slice(0, 4));
  if ((two >= 51 && two <= 55) || (four >= 2221 && four <= 2720)) return 'mastercard';
  if (two === 34 || two === 37) return 'amex';
  return 'unknown';
}

/** The Luhn (mod 10) check every card number carries in its last digit. */
export function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (digit < 0 || digit > 9) return false;
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return digits.length > 0 && sum % 10 === 0;
}
