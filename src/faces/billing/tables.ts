/**
 * The billing face's own tables: prices, subscriptions, invoices and the invoice numbers of each (mode,
 * entity), declared into the store's `Database` (so every `ctx.db` query types them), and the migration that
 * makes them. The period closer finds what is due across every partition, by status and time.
 */
import type { Kysely } from 'kysely';
import type { ModuleMigration } from '../../core/face-module.js';
import type { Mode } from '../../store/schema.js';

declare module '../../store/schema.js' {
  interface Database {
    billing_prices: BillingPriceTable;
    billing_subscriptions: BillingSubscriptionTable;
    billing_invoices: BillingInvoiceTable;
    billing_invoice_numbers: BillingInvoiceNumberTable;
  }
}

export interface BillingPriceTable {
  mode: Mode;
  entity_id: string;
  /** `price_…` */
  id: string;
  currency: string;
  nickname: string | null;
  /** JSON: the price as rated (src/faces/billing/rating.ts) and its usage source, `{type, amount?, unitAmount?, tiers?, usage?}`. */
  definition: string;
  created_at: string;
}

export type SubscriptionStatus = 'active' | 'canceled';

export interface BillingSubscriptionTable {
  mode: Mode;
  entity_id: string;
  /** `sub_…` */
  id: string;
  customer_id: string;
  /** JSON array of price ids, in the order given. */
  price_ids: string;
  currency: string;
  interval: 'day' | 'week' | 'month';
  interval_count: number;
  /** The anchor of the periods: the start, on a whole minute. */
  start_date: string;
  /** Periods closed so far: the current one is number `periods_closed` from the anchor. */
  periods_closed: number;
  current_period_start: string;
  current_period_end: string;
  status: SubscriptionStatus;
  cancel_at_period_end: number;
  canceled_at: string | null;
  latest_invoice_id: string | null;
  metadata: string | null;
  created_at: string;
}

export type InvoiceStatus = 'draft' | 'open' | 'paid' | 'void' | 'uncollectible';

export interface BillingInvoiceTable {
  mode: Mode;
  entity_id: string;
  /** `in_…` */
  id: string;
  /** Given when finalized. */
  number: string | null;
  subscription_id: string;
  customer_id: string;
  currency: string;
  status: InvoiceStatus;
  period_start: string;
  period_end: string;
  /** JSON array of the lines, frozen when finalized; null while a draft (rated when read). */
  lines: string | null;
  total: number | string;
  amount_paid: number | string;
  payment_intent_id: string | null;
  attempt_count: number;
  created_at: string;
  finalized_at: string | null;
  paid_at: string | null;
  voided_at: string | null;
  uncollectible_at: string | null;
}

/** The last invoice number given per (mode, entity). */
export interface BillingInvoiceNumberTable {
  mode: Mode;
  entity_id: string;
  last: number;
}

export const migrations: readonly ModuleMigration[] = [
  {
    name: '0011_billing',
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('billing_prices')
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('entity_id', 'text', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('currency', 'text', (c) => c.notNull())
        .addColumn('nickname', 'text')
        .addColumn('definition', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('billing_prices_pkey', ['mode', 'entity_id', 'id'])
        .execute();
      await db.schema
        .createTable('billing_subscriptions')
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('entity_id', 'text', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('customer_id', 'text', (c) => c.notNull())
        .addColumn('price_ids', 'text', (c) => c.notNull())
        .addColumn('currency', 'text', (c) => c.notNull())
        .addColumn('interval', 'text', (c) => c.notNull())
        .addColumn('interval_count', 'integer', (c) => c.notNull())
        .addColumn('start_date', 'text', (c) => c.notNull())
        .addColumn('periods_closed', 'integer', (c) => c.notNull())
        .addColumn('current_period_start', 'text', (c) => c.notNull())
        .addColumn('current_period_end', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('cancel_at_period_end', 'integer', (c) => c.notNull())
        .addColumn('canceled_at', 'text')
        .addColumn('latest_invoice_id', 'text')
        .addColumn('metadata', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('billing_subscriptions_pkey', ['mode', 'entity_id', 'id'])
        .execute();
      await db.schema.createIndex('billing_subscriptions_due').on('billing_subscriptions').columns(['status', 'current_period_end']).execute();
      await db.schema
        .createTable('billing_invoices')
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('entity_id', 'text', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('number', 'text')
        .addColumn('subscription_id', 'text', (c) => c.notNull())
        .addColumn('customer_id', 'text', (c) => c.notNull())
        .addColumn('currency', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('period_start', 'text', (c) => c.notNull())
        .addColumn('period_end', 'text', (c) => c.notNull())
        .addColumn('lines', 'text')
        .addColumn('total', 'bigint', (c) => c.notNull())
        .addColumn('amount_paid', 'bigint', (c) => c.notNull())
        .addColumn('payment_intent_id', 'text')
        .addColumn('attempt_count', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('finalized_at', 'text')
        .addColumn('paid_at', 'text')
        .addColumn('voided_at', 'text')
        .addColumn('uncollectible_at', 'text')
        .addPrimaryKeyConstraint('billing_invoices_pkey', ['mode', 'entity_id', 'id'])
        // One invoice per period of a subscription, however many closers race to make it.
        .addUniqueConstraint('billing_invoices_period', ['mode', 'entity_id', 'subscription_id', 'period_start'])
        .addUniqueConstraint('billing_invoices_number', ['mode', 'entity_id', 'number'])
        .execute();
      await db.schema.createIndex('billing_invoices_due').on('billing_invoices').columns(['status', 'period_end']).execute();
      await db.schema
        .createTable('billing_invoice_numbers')
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('entity_id', 'text', (c) => c.notNull())
        .addColumn('last', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('billing_invoice_numbers_pkey', ['mode', 'entity_id'])
        .execute();
    },
  },
];
