/**
 * The fixture stores of test/fixtures/stores/2026-11 (written by the program at dfe3386, see its README):
 * the shape of the ids that program gave what it wrote (the fixture's ids.json, per store), and the reads
 * the upgrade test makes of them. The same reads were made of each store, by that program, right after it
 * wrote it; their answers are kept in the fixture's answers.json, so a later program is held to what that
 * one answered.
 */

/** What one fixture store holds, by the ids it was given. */
export interface FixtureIds {
  /** Test mode, entity acme, every face the fixture uses; its secret, as `keys.create` answered it. */
  testKey: { id: string; secret: string };
  /**
   * Live mode, entity acme, keys:read and storage read/write only. Its secret is not kept: a live secret in a
   * repository is what secret scanners look for, so the test reads live data with a live key it makes itself.
   */
  liveKey: { id: string };
  customer: string;
  /** 2500 eur, captured by the sandbox with automatic capture; 700 of it refunded by `refund`. */
  intent: string;
  refund: string;
  /** The `payments.intent.succeeded` event of `intent`. */
  intentEvent: string;
  prices: { fee: string; tokens: string; setup: string };
  subscriptions: { active: string; canceled: string };
  /** INV-000001: the canceled subscription's setup fee (1500 usd), paid through payments by `invoiceIntent`. */
  invoice: string;
  invoiceIntent: string;
  template: string;
  message: string;
  /** A webhook endpoint and its signing secret, as `webhooks.create` answered it. */
  endpoint: { id: string; secret: string };
  /** Every call that wrote the store was answered before this instant (a whole minute); the reads came after. */
  writtenBefore: string;
}

/** One read: a call made with the fixture's test or live key for entity acme. */
export interface Read {
  name: string;
  as: 'test' | 'live';
  face: string;
  action: string;
  payload: Record<string, unknown>;
}

/**
 * The version every read names, so that what a read answers does not depend on the day the test runs (the
 * version in force by default moves with the calendar; this one writes usage sums as decimal strings).
 */
export const READ_VERSION = '2027-03-01';

export const OBJECT_KEYS = { report: 'reports/2026/q3.json', note: 'notes/Grüße/café ☕.txt', upload: 'uploads/données.bin', live: 'live/ready.txt' };

export function reads(ids: FixtureIds): Read[] {
  const read = (as: Read['as'], face: string, action: string, payload: Record<string, unknown> = {}): Read => ({ name: `${as} ${face}.${action} ${JSON.stringify(payload)}`, as, face, action, payload });
  const minuteBefore = new Date(Date.parse(ids.writtenBefore) - 1).toISOString();
  return [
    read('test', 'keys', 'list', { includeRevoked: true }),
    read('test', 'keys', 'get', { id: ids.testKey.id }),
    read('live', 'keys', 'get', { id: ids.liveKey.id }),
    read('test', 'payments', 'getCustomer', { id: ids.customer }),
    read('test', 'payments', 'listCustomers'),
    read('test', 'payments', 'getIntent', { id: ids.intent }),
    read('test', 'payments', 'getIntent', { id: ids.invoiceIntent }),
    read('test', 'payments', 'listIntents'),
    read('test', 'payments', 'listRefunds', { intent: ids.intent }),
    read('test', 'payments', 'balance'),
    read('test', 'storage', 'get', { key: OBJECT_KEYS.report }),
    read('test', 'storage', 'get', { key: OBJECT_KEYS.note }),
    read('test', 'storage', 'get', { key: OBJECT_KEYS.upload }),
    read('test', 'storage', 'list'),
    read('live', 'storage', 'get', { key: OBJECT_KEYS.live }),
    read('live', 'storage', 'list'),
    read('test', 'billing', 'listPrices'),
    read('test', 'billing', 'getSubscription', { id: ids.subscriptions.active }),
    read('test', 'billing', 'listSubscriptions'),
    read('test', 'billing', 'getInvoice', { id: ids.invoice }),
    read('test', 'billing', 'listInvoices'),
    read('test', 'email', 'getTemplate', { name: 'welcome' }),
    read('test', 'email', 'get', { id: ids.message }),
    read('test', 'email', 'list'),
    read('test', 'webhooks', 'get', { id: ids.endpoint.id }),
    read('test', 'events', 'list', { limit: 100 }),
    read('test', 'events', 'get', { id: ids.intentEvent }),
    read('test', 'usage', 'events', { to: ids.writtenBefore, limit: 100 }),
    read('test', 'usage', 'summary', { from: new Date(Date.parse(ids.writtenBefore) - 3_600_000).toISOString(), to: minuteBefore, groupBy: ['face'] }),
  ];
}
