/**
 * An idempotency key whose call was cut short by a crash: `dispatch serve` is killed (SIGKILL) while a call
 * holds its key; after a restart the key answers 409 while the claim's lease (the call's time-out plus
 * IDEMPOTENCY_LEASE_MARGIN_MS) runs, then a retry under the same key runs the call, instead of 409 for 24 h.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DISPATCH, ROOT, serve, type ServeProcess } from '../helpers/process.js';

const dataDir = mkdtempSync(join(tmpdir(), 'dispatch-lease-'));
let answering = false;
/** An OpenAI-compatible provider that hangs until `answering` is set. */
const provider: Server = createServer((req, res) => {
  req.resume();
  if (!answering) return;
  res.setHeader('content-type', 'application/json');
  res.end(
    JSON.stringify({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 0,
      model: 'gpt-4o-mini',
      choices: [{ index: 0, message: { role: 'assistant', content: 'at last', refusal: null }, logprobs: null, finish_reason: 'stop' }],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    }),
  );
});
const running: ServeProcess[] = [];
afterAll(async () => {
  for (const p of running) if (p.child.exitCode === null && p.child.signalCode === null) await p.stop();
  provider.closeAllConnections();
  provider.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('idempotency keys across a crash', () => {
  it('answers 409 while the dead call\'s lease runs, then runs a retry under the same key', async () => {
    await new Promise<void>((r) => provider.listen(0, '127.0.0.1', () => r()));
    const env = {
      DATA_DIR: dataDir,
      AI_BASE_URL: `http://127.0.0.1:${(provider.address() as AddressInfo).port}/v1`,
      AI_API_KEY: 'sk-upstream',
      IDEMPOTENCY_LEASE_MARGIN_MS: '300',
    };
    const created = execFileSync(process.execPath, [DISPATCH, 'keys', 'create', '--mode', 'live', '--json'], { cwd: ROOT, env: { ...process.env, ...env } });
    const key = (JSON.parse(created.toString()) as { key: string }).key;
    const call = (server: ServeProcess) =>
      fetch(`${server.url}/do`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'x-entity-id': 'acme', 'content-type': 'application/json', 'x-idempotency-key': 'crash-1' },
        body: JSON.stringify({ face: 'ai', action: 'generate', payload: { model: 'gpt-4o-mini', prompt: 'hello' }, options: { timeout: 4000 } }),
      });

    const first = await serve(env);
    running.push(first);
    const lost = call(first).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 300));
    first.child.kill('SIGKILL');
    await lost;
    const killedAt = Date.now();

    const second = await serve(env);
    running.push(second);
    answering = true;
    const early = await call(second);
    expect(early.status).toBe(409);
    expect(((await early.json()) as any).error.code).toBe('idempotency_key_in_use');
    await new Promise((r) => setTimeout(r, Math.max(0, 4000 + 300 + 100 - (Date.now() - killedAt))));
    const retried = await call(second);
    expect(retried.status).toBe(200);
    expect(((await retried.json()) as any).data.text).toBe('at last');
    const replayed = await call(second);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
  });
});
