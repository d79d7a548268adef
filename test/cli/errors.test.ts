/**
 * A usage error from `dispatch` is one line on stderr that names the command's help, with exit code 2 (never the
 * whole help); arguments a command does not take are refused; `dispatch usage` says in one line what is wrong
 * with a placeholder key or an address where no server listens.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DISPATCH, ROOT, freePort } from '../helpers/process.js';

const DATA_DIR = mkdtempSync(join(tmpdir(), 'dispatch-errors-'));

/** Runs the compiled program to its end, without blocking the test process while it runs. */
function dispatch(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [DISPATCH, ...args], { cwd: ROOT, env: { ...process.env, DATA_DIR, DATABASE_URL: '', ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

const oneLine = (text: string) => expect(text.endsWith('\n') && !text.slice(0, -1).includes('\n'), text).toBe(true);

describe('dispatch usage errors', () => {
  it('are one line naming the help of the command at fault, exit 2, for every kind commander reports', async () => {
    const cases: [string[], RegExp][] = [
      [['generate', '--no-such-flag'], /^error: unknown option '--no-such-flag' \(see `dispatch generate --help`\)$/],
      [['generate', '--watc'], /unknown option '--watc' \(Did you mean --watch\?\) \(see `dispatch generate --help`\)$/],
      [['keys', 'create', '--mode', 'staging'], /argument 'staging' is invalid\. Allowed choices are live, test\. \(see `dispatch keys create --help`\)$/],
      [['keys', 'create'], /required option '--mode <mode>' not specified \(see `dispatch keys create --help`\)$/],
      [['keys', 'revoke'], /missing required argument 'id' \(see `dispatch keys revoke --help`\)$/],
      [['usage', 'summary', '--group-by'], /option '--group-by <fields>' argument missing \(see `dispatch usage summary --help`\)$/],
      [['frobnicate'], /unknown command 'frobnicate' \(see `dispatch --help`\)$/],
      [['keys', 'frob'], /unknown command 'frob' \(see `dispatch keys --help`\)$/],
      [['generate', 'extra'], /too many arguments for 'generate'\. Expected 0 arguments but got 1\. \(see `dispatch generate --help`\)$/],
      [['keys', 'revoke', 'key_a', 'key_b'], /too many arguments for 'revoke'/],
      [['usage', 'events', '--url', 'http://127.0.0.1:9', 'extra'], /too many arguments for 'events'/],
    ];
    const results = await Promise.all(cases.map(([args]) => dispatch(args)));
    results.forEach((result, i) => {
      const [args, message] = cases[i]!;
      expect({ args, code: result.code, stdout: result.stdout }).toEqual({ args, code: 2, stdout: '' });
      oneLine(result.stderr);
      expect(result.stderr.trimEnd()).toMatch(message);
    });
  }, 60_000);

  it('usage: a placeholder key or an entity no call can name is one line (exit 2), and an address with no server names --url and DISPATCH_URL (exit 1)', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const [placeholder, unreachable, entity] = await Promise.all([
      dispatch(['usage', 'summary'], { DISPATCH_API_KEY: 'sk_test_…', DISPATCH_URL: closed }),
      dispatch(['usage', 'events', '--url', closed, '--key', `sk_test_${'a'.repeat(40)}`]),
      dispatch(['usage', 'summary', '--url', closed, '--key', `sk_test_${'a'.repeat(40)}`, '--entity', 'acme corp']),
    ]);
    expect(entity.code).toBe(2);
    oneLine(entity.stderr);
    expect(entity.stderr).toContain('The entity "acme corp" is not an entity id');
    expect(placeholder.code).toBe(2);
    oneLine(placeholder.stderr);
    expect(placeholder.stderr).toContain('The API key has "…" at character 9');
    expect(placeholder.stderr).toContain('--key or DISPATCH_API_KEY');
    expect(unreachable.code).toBe(1);
    oneLine(unreachable.stderr);
    expect(unreachable.stderr).toContain(`Could not reach ${closed}/do`);
    expect(unreachable.stderr).toContain('--url or DISPATCH_URL');
  }, 60_000);
});
