/**
 * How `serve` stops on signals: the first starts the orderly stop, a second during it is ignored with a note, a
 * third ends the process at once. `npm start` stopped as Ctrl-C stops it (a signal to its process group, which
 * npm forwards again to the server) writes every buffered usage record before the server exits.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stopOnSignals, type StopHost } from '../../src/cli/stop-signals.js';
import { openShippedStore } from '../../src/server/shipped.js';
import { freePort, printedKey, ROOT } from '../helpers/process.js';

/** A process stand-in: signals are delivered by `send`, and what the stop says and its exit are kept. */
function fakeHost() {
  const listeners = new Map<string, Array<() => void>>();
  const said: string[] = [];
  const exits: number[] = [];
  const host: StopHost = {
    on: (signal, listener) => listeners.set(signal, [...(listeners.get(signal) ?? []), listener]),
    exit: (code) => void exits.push(code),
    say: (line) => void said.push(line),
  };
  const send = (signal: NodeJS.Signals) => listeners.get(signal)?.forEach((listener) => listener());
  return { host, send, said, exits };
}

/** A stop that ends when the test says so. */
function heldStop() {
  let calls = 0;
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return { stop: () => (calls++, done), calls: () => calls, finish };
}

describe('stopping on signals', () => {
  it('ignores a second signal during the stop, with a note, and exits 0 once the stop ends', async () => {
    const { host, send, said, exits } = fakeHost();
    const held = heldStop();
    stopOnSignals(held.stop, host);
    send('SIGTERM');
    send('SIGTERM');
    await new Promise((resolve) => setImmediate(resolve));
    expect([held.calls(), exits]).toEqual([1, []]);
    expect(said).toEqual(['SIGTERM again: still stopping (calls in flight finish, buffered usage is written); a third signal stops at once.']);
    held.finish();
    await new Promise((resolve) => setImmediate(resolve));
    expect(exits).toEqual([0]);
  });

  it('ends the process at once on a third signal, saying what is lost', () => {
    const { host, send, said, exits } = fakeHost();
    const held = heldStop();
    stopOnSignals(held.stop, host);
    send('SIGINT');
    send('SIGTERM');
    send('SIGINT');
    expect(held.calls()).toBe(1);
    expect(exits).toEqual([130]);
    expect(said.at(-1)).toBe('SIGINT a third time: stopping at once; calls in flight are cut and usage not yet written is lost.');
  });

  it('exits 1 with one line when the stop fails', async () => {
    const { host, send, said, exits } = fakeHost();
    stopOnSignals(() => Promise.reject(new Error('the store would not close')), host);
    send('SIGINT');
    await new Promise((resolve) => setImmediate(resolve));
    expect([said, exits]).toEqual([['The stop failed: the store would not close'], [1]]);
  });
});

describe('npm start, stopped as Ctrl-C stops it', () => {
  it('writes every buffered usage record when its process group gets SIGTERM', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dispatch-stop-'));
    const port = await freePort();
    // A flush window far longer than the test: only the stop can write the records. Its own process group, as
    // a terminal gives it; the program is already built (test/global-setup.ts), so the start builds nothing.
    const npm = spawn('npm', ['start', '--silent'], { cwd: ROOT, detached: true, env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), USAGE_FLUSH_MS: '600000' } });
    const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
    let output = '';
    npm.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await new Promise<void>((resolve, reject) => {
      npm.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()).includes("-d '") && resolve());
      void exited.then((code) => reject(new Error(`npm start exited with ${code}: ${output}`)));
    });
    const key = printedKey(output);
    for (let i = 0; i < 50; i++) {
      const response = await fetch(`http://127.0.0.1:${port}/do`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'x-entity-id': 'acme', 'content-type': 'application/json' },
        body: JSON.stringify({ face: 'ai', action: 'generate', payload: { model: 'm', prompt: `call ${i}` } }),
      });
      expect(response.status).toBe(200);
    }
    process.kill(-npm.pid!, 'SIGTERM');
    expect(await exited).toBe(0);
    const db = await openShippedStore({ dataDir });
    try {
      expect((await db.selectFrom('usage_records').select('id').execute()).length).toBe(50);
    } finally {
      await db.destroy();
    }
  }, 90_000);
});
