/**
 * `dispatch serve` (what `npm start` runs) on an empty store: it prints one test admin key and a curl
 * line; that call works exactly as printed; a second start prints no new key; SIGTERM stops it cleanly.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort, printedKey, serve } from '../helpers/process.js';

describe('dispatch serve', () => {
  it('creates and prints the first key once, with a curl line that works as printed', async () => {
    const env = { DATA_DIR: mkdtempSync(join(tmpdir(), 'dispatch-serve-')) };
    const first = await serve(env);
    try {
      expect(printedKey(first.output())).toMatch(/^sk_test_/);
      const output = first.output();
      const curl = output.slice(output.indexOf('curl -s')).trim().replace(/\\\n\s*/g, '');
      const { stdout } = await promisify(execFile)('sh', ['-c', curl]);
      const reply = JSON.parse(stdout) as { data: { text: string; model: string }; meta: { requestId: string } };
      expect(reply.data.model).toBe('gpt-4o-mini');
      expect(reply.data.text.length).toBeGreaterThan(0);
      expect(reply.meta.requestId).toMatch(/^req_/);
    } finally {
      expect(await first.stop()).toBe(0);
    }
    const second = await serve(env);
    try {
      expect(second.output()).toContain('listening on');
      expect(second.output()).not.toContain('sk_test_');
    } finally {
      await second.stop();
    }
  }, 60_000);

  it('names the port the system chose for PORT=0, in its banner, its curl line and the served document', async () => {
    const started = await serve({ DATA_DIR: mkdtempSync(join(tmpdir(), 'dispatch-serve-')), PORT: '0', HOST: '127.0.0.1' });
    try {
      const output = started.output();
      const port = /listening on http:\/\/127\.0\.0\.1:(\d+) /.exec(output)?.[1];
      expect(Number(port)).toBeGreaterThan(0);
      expect(output).not.toContain(':0/');
      expect(output).toContain(`http://127.0.0.1:${port}/do`);
      const document = (await (await fetch(`http://127.0.0.1:${port}/openapi.json`)).json()) as { servers: { url: string }[] };
      expect(document.servers[0]!.url).toBe(`http://127.0.0.1:${port}`);
    } finally {
      expect(await started.stop()).toBe(0);
    }
  }, 60_000);

  it('keeps the first key for a later start when this start cannot listen', async () => {
    const env = { DATA_DIR: mkdtempSync(join(tmpdir(), 'dispatch-serve-')) };
    const port = await freePort();
    const taken = createServer().listen(port, '127.0.0.1');
    await new Promise((r) => taken.once('listening', r));
    try {
      await expect(serve({ ...env, PORT: String(port) })).rejects.toThrow(/exited with 2: Port \d+ is in use on 127.0.0.1/);
    } finally {
      taken.close();
    }
    const next = await serve(env);
    try {
      expect(printedKey(next.output())).toMatch(/^sk_test_/);
    } finally {
      await next.stop();
    }
  }, 60_000);
});
