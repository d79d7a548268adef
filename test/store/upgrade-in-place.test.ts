/**
 * Stores written by an earlier program upgrade in place with nothing lost: the fixture stores of
 * test/fixtures/stores/2026-11 (SQLite, and a PostgreSQL dump; both with their stored files), written by the
 * program at dfe3386 through its API, are copied, opened the way the server opens a store (which runs the
 * migrations they lack), served on the shipped catalogue and read back through `POST /do` with the test key
 * they hold (live data with a live key made in the copy): keys, payments, stored objects and their bytes,
 * billing, e-mail, webhooks, events and usage.
 * Every read must answer at least what that program answered (answers.json); the main facts are also
 * asserted here by value.
 *
 * Besides the test helpers, the test reaches the program only through these entry points, so that moving
 * files means changing import paths, never the test: `openStore` (src/store/open.ts), `buildServer`
 * (src/server/server.ts) and `shippedCatalogue` (src/server/shipped.ts), all three through `startServer`
 * (test/helpers/server.ts); and `useSecretKeys` and `parseSecretKey` (src/store/sealed.ts), which
 * `dispatch serve` calls at start.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSecretKey, useSecretKeys } from '../../src/store/sealed.js';
import { createTestDatabase, restoreDump } from '../helpers/postgres.js';
import { startReceiver, verified, type Receiver } from '../helpers/receiver.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { OBJECT_KEYS, READ_VERSION, reads, type FixtureIds } from './upgrade-reads.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/stores/2026-11/', import.meta.url));
/** The `DISPATCH_SECRET_KEY` the fixture's servers ran with: it sealed the webhook signing secrets. */
const FIXTURE_SECRET_KEY = 'g2AYwxcck6+zQg6lzHnSxW85Af4vOdxg2tcu+mClfwU=';
type Kind = 'sqlite' | 'postgres';
const fixtureJson = (name: string): unknown => JSON.parse(readFileSync(join(FIXTURE, name), 'utf8'));
const FIXTURES = fixtureJson('ids.json') as Record<Kind, FixtureIds>;
const ANSWERS = fixtureJson('answers.json') as Record<Kind, Record<string, unknown>>;

/** The stored files' content, as the fixture's calls sent it. */
const CONTENT = {
  report: Buffer.from('{"quarter":"Q3","revenue":1250}'),
  note: Buffer.from('Grüße aus Köln ☕\n'),
  upload: Buffer.from(Array.from({ length: 1024 }, (_, i) => (i * 7 + 3) % 256)),
  live: Buffer.from('live mode content'),
};

interface Copy {
  store: { dataDir: string; databaseUrl?: string };
  remove(): Promise<void>;
}

const STORES: { name: string; fixture: Kind; copy(dir: string): Promise<Copy> }[] = [
  {
    name: 'SQLite',
    fixture: 'sqlite',
    async copy(dir) {
      cpSync(join(FIXTURE, 'sqlite'), join(dir, 'data'), { recursive: true });
      return { store: { dataDir: join(dir, 'data') }, remove: async () => {} };
    },
  },
  {
    name: 'PostgreSQL',
    fixture: 'postgres',
    async copy(dir) {
      const database = await createTestDatabase();
      await restoreDump(database.url, readFileSync(join(FIXTURE, 'postgres.sql'), 'utf8'));
      return { store: { dataDir: join(dir, 'data'), databaseUrl: database.url }, remove: database.drop };
    },
  },
];

beforeAll(() => useSecretKeys(parseSecretKey(FIXTURE_SECRET_KEY)));

describe.each(STORES)('a $name store written at dfe3386', ({ fixture, copy }) => {
  const ids: FixtureIds = FIXTURES[fixture];
  let dir: string;
  let copied: Copy | undefined;
  let server: TestServer;
  let liveSecret: string;
  let receiver: Receiver;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dispatch-upgrade-'));
    cpSync(join(FIXTURE, 'storage'), join(dir, 'storage'), { recursive: true });
    copied = await copy(dir);
    // The billing closer and the payments reconciler would act on the fixture's periods and records as the
    // calendar moves on; the reads are about what was stored.
    server = await startServer({ store: copied.store, storage: { dir: join(dir, 'storage') }, billing: { closer: false }, reconciler: { reconciler: false } });
    // The fixture's live key is kept without its secret: an operator's live key reads live data instead.
    liveSecret = (await server.key({ mode: 'live', scopes: ['keys:read', 'storage:read'], entities: ['acme'], tier: 'free', name: 'reader' })).secret;
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await server?.close();
    await copied?.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A call for entity acme with the fixture's test key (or the live reader), in the version the answers were read in. */
  const call = async (face: string, action: string, payload: Record<string, unknown> = {}, as: 'test' | 'live' = 'test') => {
    const reply = await server.post({ face, action, payload }, { path: `/${READ_VERSION}/do`, headers: { authorization: `Bearer ${as === 'test' ? ids.testKey.secret : liveSecret}` } });
    expect(reply.status, `${face}.${action}: ${JSON.stringify(reply.body)}`).toBe(200);
    return reply.body.data;
  };

  it('answers every read at least as the program that wrote it did', async () => {
    const recorded = ANSWERS[fixture];
    const made = reads(ids);
    expect(Object.keys(recorded)).toEqual(made.map((r) => r.name));
    for (const read of made) {
      const data = await call(read.face, read.action, read.payload, read.as);
      expect({ read: read.name, data }).toMatchObject({ read: read.name, data: recorded[read.name]! });
    }
  });

  it('keeps its keys: the test key works and lists itself; the live key is kept in live mode', async () => {
    const listed = await call('keys', 'list', { includeRevoked: true });
    expect(listed.items.map((k: any) => [k.id, k.mode, k.name, k.scopes, k.entities, k.tier])).toEqual([
      [ids.testKey.id, 'test', 'fixture test key', ['keys:read', 'payments:*', 'storage:*', 'billing:*', 'email:*', 'webhooks:*', 'events:read', 'usage:read'], ['acme'], 'pro'],
    ]);
    expect(listed.items[0]).toMatchObject({ prefix: ids.testKey.secret.slice(0, 12), last4: ids.testKey.secret.slice(-4) });
    const live = await call('keys', 'get', { id: ids.liveKey.id }, 'live');
    expect([live.mode, live.name, live.scopes, live.entities, live.tier, live.revokedAt]).toEqual(['live', 'fixture live key', ['keys:read', 'storage:read', 'storage:write'], ['acme'], 'free', undefined]);
    // Modes stay apart: the test key does not see the live key.
    const hidden = await server.post({ face: 'keys', action: 'get', payload: { id: ids.liveKey.id } }, { headers: { authorization: `Bearer ${ids.testKey.secret}` } });
    expect(hidden.status).toBe(404);
  });

  it('keeps payments: the customer, the charge, its refund and the ledger behind the balance', async () => {
    expect(await call('payments', 'getCustomer', { id: ids.customer })).toMatchObject({ email: 'ada@example.com', name: 'Ada Lovelace', metadata: { plan: 'pro' } });
    expect(await call('payments', 'getIntent', { id: ids.intent })).toMatchObject({
      id: ids.intent,
      amount: 2500,
      currency: 'eur',
      status: 'succeeded',
      customer: ids.customer,
      card: { brand: 'visa', last4: '4242' },
      amountReceived: 2500,
      amountRefunded: 700,
      metadata: { order: '1001' },
    });
    const refunds = await call('payments', 'listRefunds', { intent: ids.intent });
    expect(refunds.items.map((r: any) => [r.id, r.amount, r.currency, r.status, r.reason])).toEqual([[ids.refund, 700, 'eur', 'succeeded', 'requested_by_customer']]);
    expect(await call('payments', 'getIntent', { id: ids.invoiceIntent })).toMatchObject({ amount: 1500, currency: 'usd', status: 'succeeded', amountReceived: 1500 });
    const balance = await call('payments', 'balance');
    expect(balance.available).toEqual([{ amount: 1800, currency: 'eur' }, { amount: 1500, currency: 'usd' }]);
    // A refund still runs against what the upgraded ledger holds: 1800 eur left, no more.
    const tooMuch = await server.post({ face: 'payments', action: 'createRefund', payload: { intent: ids.intent, amount: 1801 } }, { headers: { authorization: `Bearer ${ids.testKey.secret}` } });
    expect([tooMuch.status, tooMuch.body.error.code, tooMuch.body.error.details]).toEqual([400, 'refund_too_large', { left: 1800, asked: 1801 }]);
  });

  it('keeps stored objects, their metadata and their bytes, inline and through a download link', async () => {
    const objects = [
      { key: OBJECT_KEYS.report, content: CONTENT.report, contentType: 'application/json', metadata: { source: 'fixture' } },
      { key: OBJECT_KEYS.note, content: CONTENT.note, contentType: 'text/plain; charset=utf-8', metadata: {} },
      { key: OBJECT_KEYS.upload, content: CONTENT.upload, contentType: 'application/octet-stream', metadata: { kind: 'upload' } },
    ];
    for (const { key, content, contentType, metadata } of objects) {
      const got = await call('storage', 'get', { key });
      expect(got.object).toMatchObject({ key, size: content.length, contentType, metadata });
      expect(Buffer.from(got.content, 'base64').equals(content), key).toBe(true);
    }
    expect((await call('storage', 'list')).items.map((o: any) => o.key)).toEqual([OBJECT_KEYS.note, OBJECT_KEYS.report, OBJECT_KEYS.upload]);
    const link = await call('storage', 'createDownloadUrl', { key: OBJECT_KEYS.upload });
    const download = await fetch(link.url);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(CONTENT.upload)).toBe(true);
    const live = await call('storage', 'get', { key: OBJECT_KEYS.live }, 'live');
    expect(Buffer.from(live.content, 'base64').equals(CONTENT.live)).toBe(true);
    expect((await server.post({ face: 'storage', action: 'get', payload: { key: OBJECT_KEYS.live } }, { headers: { authorization: `Bearer ${ids.testKey.secret}` } })).status).toBe(404);
  });

  it('keeps billing, e-mail, events and usage', async () => {
    expect(await call('billing', 'getSubscription', { id: ids.subscriptions.active })).toMatchObject({ customer: ids.customer, prices: [ids.prices.fee, ids.prices.tokens], status: 'active', currency: 'usd' });
    expect(await call('billing', 'getPrice', { id: ids.prices.tokens })).toMatchObject({ type: 'graduated', tiers: [{ upTo: 1000, unitAmount: '0' }, { upTo: null, unitAmount: '0.2' }], usage: { source: 'meter', meterType: 'tokens' } });
    expect(await call('billing', 'getInvoice', { id: ids.invoice })).toMatchObject({
      number: 'INV-000001',
      subscription: ids.subscriptions.canceled,
      status: 'paid',
      total: 1500,
      amountPaid: 1500,
      paymentIntent: ids.invoiceIntent,
      lines: [{ price: ids.prices.setup, quantity: '1', amount: 1500 }],
    });
    expect(await call('email', 'getTemplate', { name: 'welcome' })).toMatchObject({ id: ids.template, subject: 'Welcome, {{name}}', text: 'Hello {{name}}, your code is {{code}}.' });
    expect(await call('email', 'get', { id: ids.message })).toMatchObject({ status: 'delivered', to: ['ada@example.com'], subject: 'Welcome, Ada', text: 'Hello Ada, your code is 4321.', template: 'welcome' });
    expect(await call('events', 'get', { id: ids.intentEvent })).toMatchObject({ type: 'payments.intent.succeeded', livemode: false, entityId: 'acme', request: { idempotencyKey: 'order-1001' }, data: { id: ids.intent, amount: 2500 } });
    const records = await call('usage', 'events', { to: ids.writtenBefore, limit: 100, filter: { face: ['payments'], action: ['createIntent'] } });
    expect(records.items.map((r: any) => [r.keyId, r.mode, r.entityId, r.status, r.replayed])).toEqual([[ids.testKey.id, 'test', 'acme', 200, false]]);
    const summary = await call('usage', 'summary', { from: new Date(Date.parse(ids.writtenBefore) - 3_600_000).toISOString(), to: ids.writtenBefore });
    expect(summary.meters).toContainEqual(expect.objectContaining({ type: 'tokens', events: 2, value: '1500.1' }));
  });

  it('keeps its webhook endpoint and the secret it signs with', async () => {
    expect(await call('webhooks', 'get', { id: ids.endpoint.id })).toMatchObject({ url: 'https://hooks.example.com/dispatch', eventTypes: ['payments.*', 'billing.*'], status: 'enabled', description: 'Fixture endpoint' });
    await call('webhooks', 'update', { id: ids.endpoint.id, url: receiver.url });
    await call('webhooks', 'replay', { eventId: ids.intentEvent, endpointId: ids.endpoint.id });
    for (let i = 0; receiver.of(ids.intentEvent).length === 0 && i < 100; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    const [delivery] = receiver.of(ids.intentEvent);
    // Signed with the secret `webhooks.create` answered when the fixture was written, sealed in the store since.
    expect(verified(delivery!, ids.endpoint.secret)).toEqual(await call('events', 'get', { id: ids.intentEvent }));
  });
});
