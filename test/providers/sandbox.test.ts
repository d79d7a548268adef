/**
 * The test-mode sandbox: every test card number and test payment method and the outcome it chooses, the
 * Luhn and expiry checks, the deterministic processor ids, and the abort signal.
 */
import { describe, expect, it } from 'vitest';
import type { PaymentMethodInput, PaymentProcessor } from '../../src/providers/payments/processor.js';
import { cardBrand, createSandboxProcessor, passesLuhn, sandboxProcessor } from '../../src/providers/payments/sandbox.js';

// Mid-June 2030: cards expiring 06/2030 are still good, 05/2030 are not.
const sandbox: PaymentProcessor = createSandboxProcessor({ now: () => new Date('2030-06-15T12:00:00Z') });

const card = (number: string, expMonth = 12, expYear = 2034) => ({ card: { number, expMonth, expYear, cvc: '123' } });

const confirm = (paymentMethod: PaymentMethodInput, captureMethod: 'automatic' | 'manual' = 'automatic', intentId = 'pi_test_1') =>
  sandbox.confirm({ intentId, amount: 1999, currency: 'usd', captureMethod, paymentMethod });

describe('sandbox: card numbers', () => {
  it.each([
    ['4242424242424242', 'succeeded', undefined, { brand: 'visa', last4: '4242' }],
    ['4000000000000002', 'declined', 'card_declined', { brand: 'visa', last4: '0002' }],
    ['4000000000009995', 'declined', 'insufficient_funds', { brand: 'visa', last4: '9995' }],
    ['4000000000000119', 'declined', 'processing_error', { brand: 'visa', last4: '0119' }],
    ['4000000000000069', 'declined', 'expired_card', { brand: 'visa', last4: '0069' }],
    // Any other number that passes Luhn succeeds, with the brand its prefix names.
    ['5555555555554444', 'succeeded', undefined, { brand: 'mastercard', last4: '4444' }],
    ['2223003122003222', 'succeeded', undefined, { brand: 'mastercard', last4: '3222' }],
    ['378282246310005', 'succeeded', undefined, { brand: 'amex', last4: '0005' }],
    ['6011111111111117', 'succeeded', undefined, { brand: 'unknown', last4: '1117' }],
    ['4242 4242 4242 4242', 'succeeded', undefined, { brand: 'visa', last4: '4242' }],
  ] as const)('%s: %s %s', async (number, outcome, declineCode, summary) => {
    const result = await confirm(card(number));
    expect(result.outcome).toBe(outcome);
    expect(result.card).toEqual(summary);
    if (result.outcome === 'declined') {
      expect(result.declineCode).toBe(declineCode);
      expect(result.message).not.toBe('');
    } else {
      expect(result.processorId).toBe('sandbox_pi_test_1');
    }
  });

  it.each([
    ['4242424242424241', 'fails the Luhn check'],
    ['1234567890123456', 'fails the Luhn check'],
    ['42424242', 'is too short'],
    ['4242-4242-4242-424x', 'has a letter'],
    ['', 'is empty'],
  ])('declines %j, which %s, as card_declined saying the number is invalid', async (number) => {
    const result = await confirm(card(number));
    expect(result).toEqual({ outcome: 'declined', declineCode: 'card_declined', message: expect.stringMatching(/card number is invalid/i) });
  });

  it.each<[number, number, string, 'expired_card' | undefined]>([
    [5, 2030, 'the month before this one', 'expired_card'],
    [12, 2029, 'last year', 'expired_card'],
    [6, 2030, 'this month, good through its last day', undefined],
    [1, 31, 'a two-digit year in the future', undefined],
    [1, 29, 'a two-digit year in the past', 'expired_card'],
  ])('expiry %i/%i (%s) → %s', async (month, year, _when, declineCode) => {
    const result = await confirm(card('4242424242424242', month, year));
    if (declineCode) expect(result).toMatchObject({ outcome: 'declined', declineCode, message: 'Your card has expired.' });
    else expect(result.outcome).toBe('succeeded');
  });

  it('checks the expiry before the number: a past expiry on the succeeding card is expired_card', async () => {
    expect(await confirm(card('4242424242424242', 1, 2020))).toMatchObject({ outcome: 'declined', declineCode: 'expired_card' });
  });

  it.each([0, 13, 1.5])('declines an expiry month of %s as card_declined', async (month) => {
    expect(await confirm(card('4242424242424242', month))).toMatchObject({
      outcome: 'declined',
      declineCode: 'card_declined',
      message: expect.stringMatching(/expiration month/),
    });
  });
});

describe('sandbox: test payment methods', () => {
  it.each([
    ['pm_card_visa', 'succeeded', undefined, { brand: 'visa', last4: '4242' }],
    ['pm_card_mastercard', 'succeeded', undefined, { brand: 'mastercard', last4: '4444' }],
    ['pm_card_chargeDeclined', 'declined', 'card_declined', { brand: 'visa', last4: '0002' }],
    ['pm_card_chargeDeclinedInsufficientFunds', 'declined', 'insufficient_funds', { brand: 'visa', last4: '9995' }],
    ['pm_card_chargeDeclinedExpiredCard', 'declined', 'expired_card', { brand: 'visa', last4: '0069' }],
    ['pm_card_chargeDeclinedProcessingError', 'declined', 'processing_error', { brand: 'visa', last4: '0119' }],
  ] as const)('%s: %s %s', async (id, outcome, declineCode, summary) => {
    const result = await confirm({ id });
    expect(result).toMatchObject({ outcome, card: summary, ...(declineCode ? { declineCode } : { processorId: 'sandbox_pi_test_1' }) });
  });

  it.each(['pm_1PqQxYLkdIwHu7ixABCDEF', 'pm_card_unknown', ''])(
    'declines %j, which is not a test payment method, with a message naming the ones it takes',
    async (id) => {
      const result = await confirm({ id });
      expect(result).toEqual({ outcome: 'declined', declineCode: 'card_declined', message: expect.stringContaining('pm_card_visa') });
      expect(result.outcome === 'declined' && result.message).toContain(`"${id}"`);
    },
  );
});

describe('sandbox: capture methods and the other operations', () => {
  it('holds a manual-capture payment and charges an automatic one', async () => {
    expect(await confirm(card('4242424242424242'), 'manual')).toMatchObject({ outcome: 'requires_capture', processorId: 'sandbox_pi_test_1' });
    expect(await confirm({ id: 'pm_card_visa' }, 'automatic')).toMatchObject({ outcome: 'succeeded' });
  });

  it('declines a manual-capture payment the same way as an automatic one', async () => {
    expect(await confirm(card('4000000000009995'), 'manual')).toMatchObject({ outcome: 'declined', declineCode: 'insufficient_funds' });
  });

  it('gives the same answer to the same confirm, and ids per intent', async () => {
    const first = await confirm(card('4242424242424242'), 'automatic', 'pi_a');
    expect(await confirm(card('4242424242424242'), 'automatic', 'pi_a')).toEqual(first);
    expect(await confirm(card('4242424242424242'), 'automatic', 'pi_b')).toMatchObject({ processorId: 'sandbox_pi_b' });
  });

  it('captures, cancels and refunds, with a refund id from the platform refund', async () => {
    await expect(sandbox.capture({ intentId: 'pi_a', processorId: 'sandbox_pi_a', amount: 500 })).resolves.toBeUndefined();
    await expect(sandbox.cancel({ intentId: 'pi_a', processorId: 'sandbox_pi_a' })).resolves.toBeUndefined();
    await expect(sandbox.refund({ intentId: 'pi_a', processorId: 'sandbox_pi_a', amount: 500, refundId: 're_1' })).resolves.toEqual({
      processorId: 'sandbox_re_1',
    });
  });

  it('refuses to start once the caller has given up', async () => {
    const controller = new AbortController();
    controller.abort(new Error('caller gone'));
    const signal = controller.signal;
    await expect(
      sandbox.confirm({ intentId: 'pi_a', amount: 1, currency: 'usd', captureMethod: 'automatic', paymentMethod: { id: 'pm_card_visa' }, signal }),
    ).rejects.toThrow('caller gone');
    await expect(sandbox.capture({ intentId: 'pi_a', processorId: 'x', amount: 1, signal })).rejects.toThrow('caller gone');
    await expect(sandbox.cancel({ intentId: 'pi_a', processorId: 'x', signal })).rejects.toThrow('caller gone');
    await expect(sandbox.refund({ intentId: 'pi_a', processorId: 'x', amount: 1, refundId: 're_1', signal })).rejects.toThrow('caller gone');
  });

  it('uses the real clock by default', async () => {
    const nextYear = new Date().getUTCFullYear() + 1;
    const lastYear = nextYear - 2;
    expect(
      await sandboxProcessor.confirm({
        intentId: 'pi_c',
        amount: 1,
        currency: 'usd',
        captureMethod: 'automatic',
        paymentMethod: card('4242424242424242', 1, nextYear),
      }),
    ).toMatchObject({ outcome: 'succeeded' });
    expect(
      await sandboxProcessor.confirm({
        intentId: 'pi_c',
        amount: 1,
        currency: 'usd',
        captureMethod: 'automatic',
        paymentMethod: card('4242424242424242', 12, lastYear),
      }),
    ).toMatchObject({ declineCode: 'expired_card' });
  });
});

describe('passesLuhn and cardBrand', () => {
  it.each([
    ['4242424242424242', true],
    ['4000000000000002', true],
    ['4000000000009995', true],
    ['4000000000000119', true],
    ['4000000000000069', true],
    ['79927398713', true],
    ['79927398710', false],
    ['4242424242424241', false],
    ['', false],
    ['42a2', false],
  ])('passesLuhn(%j) is %s', (number, valid) => {
    expect(passesLuhn(number)).toBe(valid);
  });

  it.each([
    ['4242424242424242', 'visa'],
    ['5105105105105100', 'mastercard'],
    ['5555555555554444', 'mastercard'],
    ['2221000000000009', 'mastercard'],
    ['2720990000000007', 'mastercard'],
    ['2220990000000000', 'unknown'],
    ['2721000000000000', 'unknown'],
    ['5600000000000000', 'unknown'],
    ['340000000000009', 'amex'],
    ['371449635398431', 'amex'],
    ['6011111111111117', 'unknown'],
  ])('cardBrand(%s) is %s', (number, brand) => {
    expect(cardBrand(number)).toBe(brand);
  });
});
