/**
 * What the payments module offers other faces (`ctx.service('payments')`, `host.service('payments')`): a
 * customer read and a charge, both in the caller's call (its transaction, partition, processor and events),
 * so that billing pays an invoice without reaching into payments' tables. A face that uses it imports this
 * file's types only.
 */
import type { PaymentsCustomer, PaymentsIntent, PaymentsPaymentMethod } from '../../../generated/server/types.js';
import type { HandlerContext } from '../../core/context.js';

/** The part of a call a read needs: its store (in the call's transaction) and its partition. */
export type PartitionCall = Pick<HandlerContext<never>, 'db' | 'mode' | 'entityId'>;

/** A call that charges: the intent's events are sent with the caller's. */
export type ChargeCall = HandlerContext<'payments.intent.succeeded' | 'payments.intent.failed'>;

export interface Charge {
  /**
   * The intent's id, chosen by the caller from what it pays and its attempt: an attempt rolled back after the
   * processor charged, and tried again, names the same intent, so the processor gives its first answer.
   */
  intentId: string;
  /** Integer minor units. */
  amount: number;
  currency: string;
  customer: string;
  paymentMethod: PaymentsPaymentMethod;
  description: string;
  metadata: Record<string, string>;
}

export interface PaymentsService {
  /** The customer `id` of the caller's partition; undefined when it has none of that id. */
  customer(call: PartitionCall, id: string): Promise<PaymentsCustomer | undefined>;
  /**
   * Charges at once: an intent confirmed and captured in the caller's transaction. A decline throws the
   * 402 ApiError with `keepEffects` (the failed intent and its event are kept); nothing is charged twice.
   */
  charge(call: ChargeCall, charge: Charge): Promise<PaymentsIntent>;
}
