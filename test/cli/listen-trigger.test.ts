/**
 * The developer loop of the command line against a real server and a real local receiver: `dispatch listen`
 * forwards the entity's events as signed deliveries (verified here with the generated client's
 * `webhooks.unwrap` and the secret it printed, the same on every run, the patterns of `--events` applied, a
 * failing or silent receiver reported without holding up the next event), and `dispatch trigger` makes events
 * happen by running test-mode actions, the ids their examples need made first.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createClient, webhooks } from '../../generated/client/index.js';
import { DISPATCH, runProgram, startDispatch, type ServeProcess } from '../helpers/process.js';
import { startReceiver, type Delivery, type Receiver } from '../helpers/receiver.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let configHome: string;
const receivers: Receiver[] = [];
const listeners: ServeProcess[] = [];

beforeAll(async () => {
  server = await startServer();
  configHome = mkdtempSync(join(tmpdir(), 'dispatch-config-'));
});
afterAll(async () => {
  await Promise.all(listeners.map((l) => (l.child.exitCode === null && l.child.signalCode === null ? l.stop() : undefined)));
  await Promise.all(receivers.map((r) => r.close()));
  await server?.close();
  rmSync(configHome, { recursive: true, force: true });
});

const env = (entity: string) => ({ DISPATCH_URL: server.url, DISPATCH_API_KEY: server.adminKey, DISPATCH_ENTITY: entity, XDG_CONFIG_HOME: configHome });

async function receiver(): Promise<Receiver> {
  const started = await startReceiver();
  receivers.push(started);
  return started;
}

/** Starts `dispatch listen` and answers it with the secret it printed. */
async function listen(entity: string, args: string[]): Promise<{ process: ServeProcess; secret: string }> {
  const started = await startDispatch(['listen', ...args], env(entity), (output) => output.includes('Waiting for events'));
  listeners.push(started);
  const secret = /^Signing secret: (whsec_\S+)/m.exec(started.output())?.[1];
  expect(secret).toBeDefined();
  return { process: started, secret: secret! };
}

/** Runs `dispatch trigger` and answers the event id it printed last, with every line. */
async function trigger(entity: string, event: string): Promise<{ id: string; lines: string[] }> {
  const result = await runProgram(process.execPath, [DISPATCH, 'trigger', event], { env: { ...process.env, ...env(entity) } });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  const lines = result.stdout.trim().split('\n');
  const last = new RegExp(`^${event.replace(/\./g, '\\.')}  (evt_[0-9A-Za-z]+)$`).exec(lines.at(-1)!);
  expect(last).not.toBeNull();
  return { id: last![1]!, lines };
}

async function stopped(listener: ServeProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => listener.child.once('exit', resolve));
  listener.child.kill('SIGINT');
  return exited;
}

/** The delivery of one event, once it arrived. */
const arrival = (at: Receiver, id: string): Promise<Delivery> =>
  vi.waitFor(
    () => {
      const [delivery] = at.of(id);
      if (!delivery) throw new Error(`no delivery of ${id} yet`);
      return delivery;
    },
    { timeout: 30_000, interval: 100 },
  );

describe('dispatch listen and dispatch trigger', () => {
  it('forwards triggered events signed for webhooks.unwrap with the printed secret, and goes on past a failing receiver', async () => {
    const at = await receiver();
    at.answer = (_, index) => (index === 0 ? { status: 503 } : { status: 200 });
    const { process: listener, secret } = await listen('loop-one', ['--forward-to', at.url]);

    const signup = await trigger('loop-one', 'auth.signup.succeeded');
    expect(signup.lines[0]).toMatch(/^auth\.signup  req_/);
    const subscription = await trigger('loop-one', 'billing.subscription.created');
    // The example's customer and prices are made first, and the subscription made with their ids.
    expect(subscription.lines.map((l) => l.split('  ')[0])).toEqual(['payments.createCustomer', 'billing.createPrice', 'billing.createPrice', 'billing.subscribe', 'billing.subscription.created']);

    const client = createClient({ baseUrl: server.url, apiKey: server.adminKey, entityId: 'loop-one' });
    for (const id of [signup.id, subscription.id]) {
      const delivery = await arrival(at, id);
      const event = webhooks.unwrap(delivery.body, delivery.headers, secret);
      expect(event.id).toBe(id);
      expect(event).toEqual(await client.events.get({ id }));
      expect(delivery.headers['content-type']).toBe('application/json');
    }
    expect(() => webhooks.unwrap(at.of(signup.id)[0]!.body.replace('loop-one', 'loop-two'), at.of(signup.id)[0]!.headers, secret)).toThrow();

    await vi.waitFor(() => expect(listener.output()).toContain(subscription.id), { timeout: 10_000 });
    expect(listener.output()).toMatch(new RegExp(`auth\\.signup\\.succeeded  ${signup.id}  -> 503`));
    expect(listener.output()).toMatch(new RegExp(`billing\\.subscription\\.created  ${subscription.id}  -> 200`));
    expect(await stopped(listener)).toBe(0);
    expect(listener.output()).toMatch(/Stopped\.\n$/);
  }, 90_000);

  it('signs with the same secret on the next run, forwards only what --events names, and reports a receiver that does not answer', async () => {
    const first = await listen('loop-two', ['--forward-to', 'http://127.0.0.1:9/unused']);
    expect(await stopped(first.process)).toBe(0);

    const at = await receiver();
    at.answer = (_, index) => (index === 0 ? 'hold' : { status: 204 });
    const { process: listener, secret } = await listen('loop-two', ['--forward-to', at.url, '--events', 'keys.*', '--timeout', '300']);
    expect(secret).toBe(first.secret);

    const signup = await trigger('loop-two', 'auth.signup.succeeded');
    const revoked = await trigger('loop-two', 'keys.key.revoked');
    expect(revoked.lines.map((l) => l.split('  ')[0])).toEqual(['keys.create', 'keys.revoke', 'keys.key.revoked']);
    await arrival(at, revoked.id);
    // Forwarded oldest first: by the revocation, the key's creation (held) came, and the sign-up never does.
    const types = at.deliveries.map((d) => webhooks.unwrap(d.body, d.headers, secret).type);
    expect(types).toEqual(['keys.key.created', 'keys.key.revoked']);
    expect(at.of(signup.id)).toEqual([]);
    await vi.waitFor(() => expect(listener.output()).toContain(revoked.id), { timeout: 10_000 });
    expect(listener.output()).toMatch(/keys\.key\.created  evt_\w+  -> failed: no answer within 300 ms/);
    expect(listener.output()).toMatch(new RegExp(`keys\\.key\\.revoked  ${revoked.id}  -> 204`));
    expect(await stopped(listener)).toBe(0);
  }, 90_000);

  it('refuses in one line: a pattern that names no event, an event the server does not have, a live key', async () => {
    const refused = async (args: string[], extra: Record<string, string> = {}) => {
      const result = await runProgram(process.execPath, [DISPATCH, ...args], { env: { ...process.env, ...env('loop-three'), ...extra } });
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      return result;
    };
    const pattern = await refused(['listen', '--forward-to', 'http://127.0.0.1:9/', '--events', 'auth.*,paymnts.*']);
    expect(pattern.status).toBe(2);
    expect(pattern.stderr).toMatch(/^--events "paymnts\.\*": no event type matches "paymnts\.\*"/);

    const unknown = await refused(['trigger', 'auth.signup.succeded']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/auth\.signup\.succeded is not an event type of the server/);
    expect(unknown.stderr).toContain('auth.signup.succeeded, ');

    const live = await refused(['trigger', 'auth.signup.succeeded'], { DISPATCH_API_KEY: `sk_live_${'a'.repeat(40)}` });
    expect(live.status).toBe(2);
    expect(live.stderr).toMatch(/test mode only/);
  });
});
