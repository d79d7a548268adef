/**
 * The mail queue across a crash: `dispatch serve` queues live messages while its SMTP server is down (each
 * deferred), is killed with SIGKILL (maybe in the middle of a send, its lease held), and starts again once the
 * SMTP server is up; every message is then sent, each once, under the Message-ID it was queued with.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { DISPATCH, freePort, ROOT, serve, type ServeProcess } from '../helpers/process.js';
import { startSmtp, type TestSmtp } from '../helpers/smtp.js';

const dir = mkdtempSync(join(tmpdir(), 'dispatch-mail-'));
let server: ServeProcess | undefined;
let smtp: TestSmtp | undefined;
afterAll(async () => {
  if (server && server.child.exitCode === null && server.child.signalCode === null) await server.stop();
  await smtp?.close();
  rmSync(dir, { recursive: true, force: true });
});

it('sends every queued message after a SIGKILL and a restart, each once', async () => {
  const smtpPort = await freePort();
  const env = { DATA_DIR: dir, SMTP_URL: `smtp://127.0.0.1:${smtpPort}`, EMAIL_RETRY_SCHEDULE: '100ms,300ms,600ms,1s,2s,3s,4s,5s,6s,8s,10s,12s,15s,20s,25s,30s,40s', EMAIL_POLL_MS: '50', EMAIL_SEND_TIMEOUT_MS: '1000' };
  const created = execFileSync(process.execPath, [DISPATCH, 'keys', 'create', '--mode', 'live', '--tier', 'enterprise', '--json'], { cwd: ROOT, env: { ...process.env, ...env } });
  const key = (JSON.parse(created.toString()) as { key: string }).key;
  const call = async (action: string, payload: unknown) => {
    const response = await fetch(`${server!.url}/do`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'x-entity-id': 'acme', 'content-type': 'application/json' },
      body: JSON.stringify({ face: 'email', action, payload }),
    });
    return (await response.json()) as any;
  };

  server = await serve(env);
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push((await call('send', { from: 'hello@acme.test', to: [`user${i}@example.com`], subject: `Message ${i}`, text: 'Hi.' })).data.id);
  // Nothing listens on the SMTP port yet: the first attempts are deferred.
  await expect.poll(async () => (await call('get', { id: ids[0] })).data.status, { timeout: 5000, interval: 50 }).toBe('deferred');
  server.child.kill('SIGKILL');
  await new Promise((resolve) => server!.child.once('exit', resolve));

  smtp = await startSmtp(smtpPort);
  server = await serve(env);
  for (const id of ids) await expect.poll(async () => (await call('get', { id })).data.status, { timeout: 20_000, interval: 100 }).toBe('sent');
  expect(smtp.received.map((r) => r.mail.messageId).sort()).toEqual(ids.map((id) => `<${id}@dispatch>`).sort());
}, 60_000);
