/**
 * The payments face's own tables: the double-entry ledger (ledger.ts) and the customers, payment intents,
 * refunds and recovery keys of the face (store.ts), declared into the store's `Database` (so every `ctx.db`
 * query types them), and the migrations that made them, under the names stores have recorded. The reconciler
 * finds what is still in flight across every partition, by state and time.
 */
import type { Kysely } from 'kysely';
import type { ModuleMigration } from '../../core/face-module.js';
import type { Mode } from '../../store/schema.js';

declare module '../../store/schema.js' {
  interface Database {
    ledger_accounts: LedgerAccountTable;
    ledger_transfers: LedgerTransferTable;
    ledger_postings: LedgerPostingTable;
    payment_customers: PaymentCustomerTable;
    payment_intents: PaymentIntentTable;
    payment_refunds: PaymentRefundTable;
    payment_recoveries: PaymentRecoveryTable;
  }
}

/** A ledger account of a partition, with the running sum of its postings. */
export interface LedgerAccountTable {
  mode: Mode;
  entity_id: string;
  id: string;
  currency: string;
  /** 1: the balance may never go below zero. */
  no_overdraft: number;
  /** Integer minor units (PostgreSQL's bigint arrives as a string). */
  balance: number | string;
  created_at: string;
}

export interface LedgerTransferTable {
  mode: Mode;
  entity_id: string;
  id: string;
  currency: string;
  kind: string;
  created_at: string;
}

export interface LedgerPostingTable {
  mode: Mode;
  entity_id: string;
  transfer_id: string;
  account: string;
  currency: string;
  /** Signed integer minor units. */
  amount: number | string;
  created_at: string;
}

export interface PaymentCustomerTable {
  mode: Mode;
  entity_id: string;
  /** `cus_…` */
  id: string;
  email: string | null;
  name: string | null;
  /** JSON object, or null. */
  metadata: string | null;
  created_at: string;
}

/** `processing`: a confirmation recorded in flight until the processor answers (or a capture or cancel inside its call). */
export type IntentStatus = 'requires_payment_method' | 'requires_confirmation' | 'processing' | 'requires_capture' | 'succeeded' | 'canceled';

export interface PaymentIntentTable {
  mode: Mode;
  entity_id: string;
  /** `pi_…` */
  id: string;
  /** Integer minor units (bigint columns arrive as strings from PostgreSQL). */
  amount: number | string;
  currency: string;
  status: IntentStatus;
  capture_method: 'automatic' | 'manual';
  customer_id: string | null;
  description: string | null;
  metadata: string | null;
  /** The payment method to confirm with, as given (JSON), until it is used. */
  payment_method: string | null;
  card_brand: string | null;
  card_last4: string | null;
  /** The processor's id of the payment (sandbox or Stripe). */
  processor_id: string | null;
  amount_capturable: number | string;
  amount_received: number | string;
  amount_refunded: number | string;
  last_error_code: string | null;
  last_error_message: string | null;
  cancellation_reason: string | null;
  /** Confirmations the intent settled or gave up: the processor's idempotency key of the next one names it. */
  attempts: number;
  created_at: string;
  updated_at: string;
}

/** `processing` from its recording until the processor answers; `failed` when it refused (never listed). */
export type RefundStatus = 'processing' | 'succeeded' | 'failed';

export interface PaymentRefundTable {
  mode: Mode;
  entity_id: string;
  /** `re_…` */
  id: string;
  intent_id: string;
  amount: number | string;
  currency: string;
  reason: string | null;
  status: RefundStatus;
  /** The processor's id of the refund, once it made it. */
  processor_id: string | null;
  created_at: string;
}

/** Which intent or refund a call started, by the call's recovery key (intents.ts and refunds.ts). */
export interface PaymentRecoveryTable {
  mode: Mode;
  entity_id: string;
  /** A digest of the call's idempotency key and its scope. */
  recovery_key: string;
  /** `pi_…` or `re_…` */
  object_id: string;
  created_at: string;
}

export const migrations: readonly ModuleMigration[] = [
  {
    name: '0007_ledger',
    // The double-entry ledger (src/faces/payments/ledger.ts): accounts with their running balance, append-only
    // transfers (idempotent on their id) and their postings.
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('ledger_accounts')
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('entity_id', 'text', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('currency', 'text', (c) => c.notNull())
        .addColumn('no_overdraft', 'integer', (c) => c.notNull())
        .addColumn('balance', 'bigint', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('ledger_accounts_pkey', ['mode', 'entity_id', 'id'])
        .execute();
      await db.schema
        .createTable('ledger_transfers')
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('entity_id', 'text', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('currency', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('ledger_transfers_pkey', ['mode', 'entity_id', 'id'])
        .execute();
      await db.schema
        .createTable('ledger_postings')
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('entity_id', 'text', (c) => c.notNull())
        .addColumn('transfer_id', 'text', (c) => c.notNull())
        .addColumn('account', 'text', (c) => c.notNull())
        .addColumn('currency', 'text', (c) => c.notNull())
        .addColumn('amount', 'bigint', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('ledger_postings_pkey', ['mode', 'entity_id', 'transfer_id', 'account'])
        .execute();
    },
  },
  {
    name: '0008_payments',
    // Customers, payment intents and refunds of the payments face; the money itself moves in the ledger.
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('payment_customers')
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('entity_id', 'text', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('email', 'text')
        .addColumn('name', 'text')
        .addColumn('metadata', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('payment_customers_pkey', ['mode', 'entity_id', 'id'])
        .execute();
      await db.schema
        .createTable('payment_intents')
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('entity_id', 'text', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('amount', 'bigint', (c) => c.notNull())
        .addColumn('currency', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('capture_method', 'text', (c) => c.notNull())
        .addColumn('customer_id', 'text')
        .addColumn('description', 'text')
        .addColumn('metadata', 'text')
        .addColumn('payment_method', 'text')
        .addColumn('card_brand', 'text')
        .addColumn('card_last4', 'text')
        .addColumn('processor_id', 'text')
        .addColumn('amount_capturable', 'bigint', (c) => c.notNull())
        .addColumn('amount_received', 'bigint', (c) => c.notNull())
        .addColumn('amount_refunded', 'bigint', (c) => c.notNull())
        .addColumn('last_error_code', 'text')
        .addColumn('last_error_message', 'text')
        .addColumn('cancellation_reason', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('payment_intents_pkey', ['mode', 'entity_id', 'id'])
        .execute();
      await db.schema
        .createTable('payment_refunds')
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('entity_id', 'text', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('intent_id', 'text', (c) => c.notNull())
        .addColumn('amount', 'bigint', (c) => c.notNull())
        .addColumn('currency', 'text', (c) => c.notNull())
        .addColumn('reason', 'text')
        .addColumn('processor_id', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('payment_refunds_pkey', ['mode', 'entity_id', 'id'])
        .execute();
    },
  },
  {
    name: '0010_intent_attempts',
    // The processor's idempotency key of a confirmation names the intent and its attempt (src/faces/payments/processing.ts).
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('payment_intents').addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    },
  },
  {
    name: '0017_processor_recovery',
    // Charges and refunds are recorded (`processing`) before the processor is asked, and settled after
    // (src/faces/payments/): refunds get a state, the calls that started them are found by their recovery key, and
    // the reconciler finds what is still in flight by state.
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('payment_refunds').addColumn('status', 'text', (c) => c.notNull().defaultTo('succeeded')).execute();
      await db.schema
        .createTable('payment_recoveries')
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('entity_id', 'text', (c) => c.notNull())
        .addColumn('recovery_key', 'text', (c) => c.notNull())
        .addColumn('object_id', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('payment_recoveries_pkey', ['mode', 'entity_id', 'recovery_key'])
        .execute();
      await db.schema.createIndex('payment_intents_status').on('payment_intents').columns(['status', 'updated_at']).execute();
      await db.schema.createIndex('payment_refunds_status').on('payment_refunds').columns(['status', 'created_at']).execute();
    },
  },
];
