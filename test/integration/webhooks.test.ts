/**
 * Webhook delivery across real processes: a server killed with SIGKILL while events are pending delivers
 * them all once started again (nothing lost; receivers see each `webhook-id` at least once), and
 * `dispatch worker` processes sharing one PostgreSQL queue send each event once, never twice at once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../helpers/postgres.js';
import { printedKey, serve, startWorker, type ServeProcess } from '../helpers/process.js';
import { startReceiver, verified, type Receiver } from '../helpers/receiver.js';
import { newSecretKey } from '../../src/store/sealed.js';

const running: ServeProcess[] = [];
const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => (p.child.exitCode === null && p.child.signalCode === null ? p.stop() : undefined)));
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function post(server: ServeProcess, key: string, body: unknown) {
  const response = await fetch(`${server.url}/do`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'x-entity-id': 'acme', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const reply = { status: response.status, body: (await response.json()) as any };
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.data;
}

/** Subscribes to every event and creates `count` keys, each emitting `keys.key.created`; returns their ids. */
async function emitKeys(server: ServeProcess, admin: string, receiver: Receiver, count: number) {
  const endpoint = await post(server, admin, { face: 'webhooks', action: 'create', payload: { url: receiver.url, eventTypes: ['keys.*'] } });
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push((await post(server, admin, { face: 'keys', action: 'create', payload: { scopes: ['ai:generate'], entities: ['acme'] } })).id);
  return { secret: endpoint.secret as string, ids };
}

/** The key ids of the verified deliveries, one entry per delivery. */
const deliveredKeys = (receiver: Receiver, secret: string) => receiver.deliveries.map((d) => verified(d, secret).data.id as string);

describe('webhooks across processes', () => {
  it('delivers every pending event after a SIGKILL and a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dispatch-kill-'));
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close(), () => rmSync(dataDir, { recursive: true, force: true }));
    // A lease lasts 2 × the time-out + 1 s: 3 s here, after which the restarted server takes over.
    const env = { DATA_DIR: dataDir, WEBHOOK_ALLOW_PRIVATE_URLS: '1', WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_POLL_MS: '100', WEBHOOK_RETRY_SCHEDULE_TEST: '200ms,400ms,800ms' };
    receiver.answer = () => 'hold';
    const first = await serve(env);
    running.push(first);
    const { secret, ids } = await emitKeys(first, printedKey(first.output()), receiver, 12);
    await expect.poll(() => receiver.deliveries.length).toBeGreaterThan(0);
    const killed = new Promise((resolve) => first.child.once('exit', resolve));
    first.child.kill('SIGKILL');
    await killed;

    receiver.answer = () => ({ status: 200 });
    const second = await serve(env);
    running.push(second);
    await expect.poll(() => new Set(deliveredKeys(receiver, secret)).size, { timeout: 15_000, interval: 200 }).toBe(ids.length);
    expect(new Set(deliveredKeys(receiver, secret))).toEqual(new Set(ids));
    expect(second.output()).not.toContain('Created the first API key');
  }, 60_000);

  it('shares one PostgreSQL queue between worker processes, sending each event once, each worker at most its concurrency at a time', async () => {
    const database = await createTestDatabase();
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close(), () => database.drop());
    // Slow receivers, counting the deliveries in flight at once.
    let inFlight = 0;
    let most = 0;
    receiver.answer = () => {
      most = Math.max(most, ++inFlight);
      setTimeout(() => inFlight--, 200);
      return { status: 200, delayMs: 200 };
    };
    const env = { DATABASE_URL: database.url, DISPATCH_SECRET_KEY: newSecretKey(), WEBHOOK_ALLOW_PRIVATE_URLS: '1', WEBHOOK_POLL_MS: '50', WEBHOOK_CONCURRENCY: '4' };
    const server = await serve({ ...env, WEBHOOK_WORKER: 'off' });
    running.push(server);
    const admin = printedKey(server.output());
    // Every event is pending before the workers start, so each lease could take them all.
    const { secret, ids } = await emitKeys(server, admin, receiver, 30);
    const workers = await Promise.all([startWorker(env), startWorker(env)]);
    running.push(...workers);
    await expect.poll(() => receiver.deliveries.length, { timeout: 15_000 }).toBe(ids.length);
    // Give a second sending of any event the time to show up before counting.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const delivered = deliveredKeys(receiver, secret);
    expect(delivered).toHaveLength(ids.length);
    expect(new Set(delivered)).toEqual(new Set(ids));
    console.log(`two workers of concurrency 4: at most ${most} deliveries in flight at once`);
    expect(most).toBeLessThanOrEqual(8);
    expect(most).toBeGreaterThan(4);
  }, 60_000);
});
