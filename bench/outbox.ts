/**
 * The transactional outbox, each figure beside its baseline in the same run, on SQLite and on PostgreSQL:
 * - what writing an event adds to a call: a call's transaction writing one row, alone, with one event
 *   (no subscriber), and with one event for one subscribed endpoint (the event and its delivery);
 * - webhook deliveries per second from the worker to a local receiver, against signed POSTs of the same
 *   events to the same receiver at the same concurrency with no store at all (the floor).
 */
import { createServer } from 'node:http';
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newId } from '../src/store/secrets.js';
import { writeEvents, type EventOrigin } from '../src/store/events.js';
import { openShippedStore } from '../src/server/shipped.js';
import type { Db } from '../src/store/schema.js';
import { CallTransaction } from '../src/store/transaction.js';
import { DEFAULT_WEBHOOK_SETTINGS } from '../src/faces/webhooks/settings.js';
import { eventBody, signatures } from '../src/faces/webhooks/message.js';
import { postWebhook } from '../src/core/webhook-post.js';
import { newSecret } from '../src/core/webhook-signing.js';
import { WebhookWorker } from '../src/faces/webhooks/worker.js';
import { createTestDatabase } from '../test/helpers/postgres.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CALLS = 400;
const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 1500);
const CONCURRENCY = 8;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const origin = (entityId: string): EventOrigin => ({ mode: 'test', entityId, apiVersion: '2026-09-01', requestId: 'req_bench' });
const event = () => ({ id: newId('evt'), type: 'ai.generate.completed', data: { model: 'bench', tokens: { input: 3, output: 9 }, streamed: false } });

export async function outbox(): Promise<void> {
  const database = await createTestDatabase();
  const receiver = await startReceiver();
  try {
    for (const [label, databaseUrl] of [['SQLite', undefined], ['PostgreSQL', database.url]] as const) {
      const db = await openShippedStore({ dataDir: mkdtempSync(join(tmpdir(), 'dispatch-bench-outbox-')), ...(databaseUrl ? { databaseUrl } : {}) });
      try {
        await eventCost(db, label, receiver.url);
        await deliveryRate(db, label, receiver);
      } finally {
        await db.destroy();
      }
    }
  } finally {
    await receiver.close();
    await database.drop();
  }
}

/** µs per call of three transactions, alternated round after round. */
async function eventCost(db: Db, label: string, url: string): Promise<void> {
  await insertEndpoint(db, 'bench-subscribed', url);
  const effect = (tx: CallTransaction) =>
    tx.db
      .insertInto('idempotency_records')
      .values({ scope: 'bench', key: newId('k'), fingerprint: 'f', state: 'done', status: 200, body: '{}', headers: '{}', created_at: '2026-01-01', expires_at: '2026-01-02' })
      .execute();
  const variants: [string, (tx: CallTransaction) => Promise<void>][] = [
    ['one row (baseline)', async (tx) => void (await effect(tx))],
    ['one row + one event, no subscriber', async (tx) => (await effect(tx), await writeEvents(tx.db, origin('bench-alone'), [event()]))],
    ['one row + one event, one subscriber', async (tx) => (await effect(tx), await writeEvents(tx.db, origin('bench-subscribed'), [event()]))],
  ];
  const times = new Map(variants.map(([name]) => [name, [] as number[]]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, work] of variants) {
      const started = performance.now();
      for (let i = 0; i < CALLS; i++) {
        const tx = new CallTransaction(db);
        await work(tx);
        await tx.commit();
      }
      times.get(name)!.push(((performance.now() - started) * 1000) / CALLS);
    }
  }
  const base = median(times.get(variants[0]![0])!);
  console.log(`\nOutbox on ${label}: one call's transaction, ${CALLS} calls in a row, median of ${ROUNDS} alternating rounds`);
  console.table(
    Object.fromEntries(
      variants.map(([name]) => {
        const us = median(times.get(name)!);
        return [name, { 'µs/call': Math.round(us), 'added µs': Math.round(us - base), 'of baseline': `${((us / base) * 100).toFixed(0)}%` }];
      }),
    ),
  );
}

/** Deliveries per second: the worker draining a queue, against the same signed POSTs with no store. */
async function deliveryRate(db: Db, label: string, receiver: Receiver): Promise<void> {
  const endpoint = await insertEndpoint(db, 'bench-deliveries', receiver.url);
  const config = { ...DEFAULT_WEBHOOK_SETTINGS, allowPrivateUrls: true, concurrency: CONCURRENCY, pollMs: 20 };
  const worker = [] as number[];
  const floor = [] as number[];
  for (let round = 0; round < ROUNDS; round++) {
    // The queue: events written as calls write them, in transactions of 100.
    for (let i = 0; i < DELIVERIES; i += 100) {
      const tx = new CallTransaction(db);
      await writeEvents(tx.db, origin('bench-deliveries'), Array.from({ length: 100 }, event));
      await tx.commit();
    }
    receiver.count = 0;
    let started = performance.now();
    const running = new WebhookWorker(db, config);
    running.start();
    while (receiver.count < DELIVERIES) await new Promise((resolve) => setTimeout(resolve, 5));
    worker.push(DELIVERIES / ((performance.now() - started) / 1000));
    await running.stop();

    const rows = await db.selectFrom('events').selectAll().where('entity_id', '=', 'bench-deliveries').limit(DELIVERIES).execute();
    started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < rows.length) {
          const row = rows[next++]!;
          const body = eventBody(row);
          const at = new Date();
          const headers = { 'webhook-id': row.id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signatures(endpoint, row.id, at, body) };
          await postWebhook(receiver.url, headers, body, { mode: 'test', timeoutMs: 15_000, allowPrivateUrls: true });
        }
      }),
    );
    floor.push(rows.length / ((performance.now() - started) / 1000));
  }
  const w = median(worker);
  const f = median(floor);
  console.log(
    `Webhook deliveries on ${label}, ${CONCURRENCY} at a time, to a local receiver: worker ${Math.round(w)}/s, signed POSTs without a store ${Math.round(f)}/s (${((w / f) * 100).toFixed(0)}%)`,
  );
}

async function insertEndpoint(db: Db, entityId: string, url: string) {
  const now = new Date().toISOString();
  const row = {
    id: newId('wh'), mode: 'test' as const, entity_id: entityId, url, description: null, event_types: JSON.stringify(['*']), status: 'enabled' as const,
    disabled_reason: null, secret: newSecret(), previous_secret: null, previous_secret_expires_at: null, created_at: now, updated_at: now,
  };
  await db.insertInto('webhook_endpoints').values(row).execute();
  return row;
}

interface Receiver {
  url: string;
  count: number;
  close(): Promise<void>;
}

/** Answers every delivery 204 at once, counting them. */
async function startReceiver(): Promise<Receiver> {
  const receiver = { url: '', count: 0, close: async () => {} };
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      receiver.count++;
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  receiver.close = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  return receiver;
}
