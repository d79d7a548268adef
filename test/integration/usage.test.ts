/**
 * Usage records across a stop and a crash of `dispatch serve`: SIGTERM writes every buffered record before
 * the process exits; SIGKILL loses at most the records of the last flush window (USAGE_FLUSH_MS).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openShippedStore } from '../../src/server/shipped.js';
import { printedKey, serve, type ServeProcess } from '../helpers/process.js';

async function calls(server: ServeProcess, key: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const response = await fetch(`${server.url}/do`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'x-entity-id': 'acme', 'content-type': 'application/json' },
      body: JSON.stringify({ face: 'ai', action: 'generate', payload: { model: 'm', prompt: `call ${i}` } }),
    });
    expect(response.status).toBe(200);
  }
}

async function recorded(dataDir: string): Promise<number> {
  const db = await openShippedStore({ dataDir });
  try {
    return (await db.selectFrom('usage_records').select('id').execute()).length;
  } finally {
    await db.destroy();
  }
}

describe('usage records across a stop and a crash', () => {
  it('SIGTERM writes every buffered record', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dispatch-usage-'));
    // A window far longer than the test: only the stop can have written them.
    const server = await serve({ DATA_DIR: dataDir, USAGE_FLUSH_MS: '600000' });
    await calls(server, printedKey(server.output()), 20);
    expect(await server.stop()).toBe(0);
    expect(await recorded(dataDir)).toBe(20);
  });

  it('SIGKILL loses at most the last flush window', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dispatch-usage-'));
    const server = await serve({ DATA_DIR: dataDir, USAGE_FLUSH_MS: '200' });
    const key = printedKey(server.output());
    await calls(server, key, 20);
    await new Promise((r) => setTimeout(r, 600));
    await calls(server, key, 5);
    const exited = new Promise((r) => server.child.once('exit', r));
    server.child.kill('SIGKILL');
    await exited;
    const count = await recorded(dataDir);
    expect(count).toBeGreaterThanOrEqual(20);
    expect(count).toBeLessThanOrEqual(25);
  });
});
