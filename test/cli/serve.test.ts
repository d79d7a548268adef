/**
 * `dispatch serve` (what `npm start` runs) on an empty store: it prints one test admin key and a curl
 * line; that call works exactly as printed; a second start prints no new key; SIGTERM stops it cleanly.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;
const children: ChildProcess[] = [];
afterEach(() => children.splice(0).forEach((c) => c.kill('SIGKILL')));

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

/** Starts the server and resolves with its output once it listens (and has printed the key, if any). */
function serve(env: Record<string, string>): Promise<{ child: ChildProcess; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), 'serve'], { cwd: ROOT, env: { ...process.env, ...env } });
  children.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      // The banner comes first; the key block, when there is one, ends with the curl line.
      if (output.includes('listening on') && (!output.includes('Created the first API key') || output.includes("-d '"))) {
        setTimeout(() => resolve({ child, output }), 50);
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${output}`)));
  });
}

describe('dispatch serve', () => {
  it('creates and prints the first key once, with a curl line that works as printed', async () => {
    const env = { DATA_DIR: mkdtempSync(join(tmpdir(), 'dispatch-serve-')), PORT: String(await freePort()) };
    const first = await serve(env);
    const key = /^\s+(sk_test_[0-9A-Za-z]{40})$/m.exec(first.output)?.[1];
    expect(key).toBeDefined();
    const curl = first.output.slice(first.output.indexOf('curl -s')).trim().replace(/\\\n\s*/g, '');
    const { stdout } = await promisify(execFile)('sh', ['-c', curl]);
    const reply = JSON.parse(stdout) as { data: { text: string; model: string }; meta: { requestId: string } };
    expect(reply.data.model).toBe('gpt-4o-mini');
    expect(reply.data.text.length).toBeGreaterThan(0);
    expect(reply.meta.requestId).toMatch(/^req_/);

    const exited = new Promise<number | null>((r) => first.child.once('exit', r));
    first.child.kill('SIGTERM');
    expect(await exited).toBe(0);

    const second = await serve(env);
    expect(second.output).toContain('listening on');
    expect(second.output).not.toContain('sk_test_');
  }, 60_000);
});
