/**
 * `serve` and `worker` refuse a configuration they cannot start with on one line that names the setting,
 * with exit code 2: a port out of range or in use, a DATA_DIR that cannot be a directory (a file in the way, a
 * path the file system refuses such as /proc/nope, one this process may not write), a DATABASE_URL or
 * REDIS_URL nobody answers at or that is not such a URL. `--port`, `--host` and `--data-dir` stand for their variables.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DISPATCH, freePort, runProgram } from '../helpers/process.js';

const SECRET = Buffer.alloc(32, 7).toString('base64');

async function dispatch(args: string[], env: Record<string, string> = {}, options: { timeout?: number; uid?: number; gid?: number } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'dispatch-start-'));
  const result = await runProgram(process.execPath, [DISPATCH, ...args], { env: { ...process.env, DATA_DIR: dataDir, ...env }, timeout: 30_000, ...options });
  const stderr = String(result.stderr ?? '');
  return { code: result.status, stdout: String(result.stdout ?? ''), lines: stderr.split('\n').filter((line) => line && !line.includes('Warning')) };
}

describe('a start that cannot be made', () => {
  it('names a PORT out of range', async () => {
    const result = await dispatch(['serve'], { PORT: '70000' });
    expect(result.code).toBe(2);
    expect(result.lines).toEqual(['PORT must be a port number from 0 to 65535, not "70000".']);
  });

  it('names a port in use, from --port too', async () => {
    const taken = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => taken.once('listening', resolve));
    const { port } = taken.address() as { port: number };
    try {
      const result = await dispatch(['serve', '--port', String(port)]);
      expect(result.code).toBe(2);
      expect(result.lines).toEqual([`Port ${port} is in use on 127.0.0.1: stop what listens there, or choose another with PORT or --port.`]);
    } finally {
      taken.close();
    }
  }, 60_000);

  it('names a DATA_DIR that cannot be a directory, given by --data-dir', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'dispatch-start-')), 'a-file');
    writeFileSync(file, '');
    const result = await dispatch(['worker', '--data-dir', join(file, 'data')]);
    expect(result.code).toBe(2);
    expect(result.lines).toHaveLength(1);
    expect(result.lines[0]).toMatch(/^DATA_DIR .*a-file\/data cannot be used \(ENOTDIR on .*\): set DATA_DIR or --data-dir to a directory this process can write\.$/);
  }, 60_000);

  // Node's own recursive mkdir loops forever on a directory the file system refuses with ENOENT: the start
  // must end, with the same one line as any other unusable directory.
  it.runIf(existsSync('/proc/self'))('names a DATA_DIR the file system refuses to make (/proc/nope), for serve and worker', async () => {
    for (const args of [['serve', '--port', '0'], ['worker']]) {
      const result = await dispatch([...args, '--data-dir', '/proc/nope'], {}, { timeout: 15_000 });
      expect([result.code, result.lines]).toEqual([2, ['DATA_DIR /proc/nope cannot be used (ENOENT on /proc/nope: it does not exist and cannot be made there): set DATA_DIR or --data-dir to a directory this process can write.']]);
    }
  }, 60_000);

  it('names a DATA_DIR that is a file', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'dispatch-start-')), 'a-file');
    writeFileSync(file, '');
    const result = await dispatch(['serve', '--data-dir', file, '--port', '0']);
    expect([result.code, result.lines.length]).toEqual([2, 1]);
    expect(result.lines[0]).toBe(`DATA_DIR ${file} cannot be used (EEXIST on ${file}: a file, not a directory, is there): set DATA_DIR or --data-dir to a directory this process can write.`);
  }, 60_000);

  it('names a DATA_DIR this process may not write, to be made or already there', async () => {
    // Root writes anywhere: the start then runs as nobody, which may read the program but not this directory.
    const asOther = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    const parent = mkdtempSync(join(tmpdir(), 'dispatch-start-'));
    chmodSync(parent, 0o755);
    const locked = join(parent, 'locked');
    mkdirSync(locked, { mode: 0o555 });
    chmodSync(locked, 0o555);
    const toMake = await dispatch(['serve', '--data-dir', join(locked, 'data'), '--port', '0'], {}, asOther);
    expect([toMake.code, toMake.lines]).toEqual([2, [`DATA_DIR ${join(locked, 'data')} cannot be used (EACCES on ${join(locked, 'data')}: permission denied): set DATA_DIR or --data-dir to a directory this process can write.`]]);
    const there = await dispatch(['serve', '--data-dir', locked, '--port', '0'], {}, asOther);
    expect([there.code, there.lines.length]).toEqual([2, 1]);
    expect(there.lines[0]).toMatch(new RegExp(`^DATA_DIR ${locked} cannot be used \\(EACCES on ${locked}/`));
  }, 60_000);

  it('names a DATABASE_URL nobody answers at, without its password', async () => {
    const port = await freePort();
    const result = await dispatch(['worker'], { DATABASE_URL: `postgres://app:hunter2@127.0.0.1:${port}/dispatch`, DISPATCH_SECRET_KEY: SECRET });
    expect(result.code).toBe(2);
    expect(result.lines).toEqual([`DATABASE_URL postgres://app:***@127.0.0.1:${port}/dispatch: cannot connect (ECONNREFUSED). Is PostgreSQL running there, and reachable from here?`]);
  }, 60_000);

  it('names a REDIS_URL nobody answers at (when calls are refused without Redis), without its password, and one that is not a redis:// URL', async () => {
    const port = await freePort();
    const unreachable = await dispatch(['serve', '--port', String(await freePort())], { REDIS_URL: `redis://:hunter2@127.0.0.1:${port}/0`, RATE_LIMIT_WHEN_UNAVAILABLE: 'refuse' });
    expect(unreachable.code).toBe(2);
    expect(unreachable.lines).toEqual([`REDIS_URL redis://:***@127.0.0.1:${port}/0: cannot connect. Is Redis running there, and reachable from here?`]);
    const malformed = await dispatch(['serve'], { REDIS_URL: '127.0.0.1:6379' });
    expect([malformed.code, malformed.lines]).toEqual([2, ['REDIS_URL is not a redis:// URL: write it as redis://host:6379, rediss:// for TLS, or a socket path.']]);
  }, 60_000);

  it('names a LOG_LEVEL pino does not know', async () => {
    const result = await dispatch(['serve'], { LOG_LEVEL: 'verbose' });
    expect([result.code, result.lines]).toEqual([2, ['LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, not "verbose".']]);
  });

  it('names a DATABASE_URL that is not a URL', async () => {
    const result = await dispatch(['serve'], { DATABASE_URL: 'postgres://[broken', DISPATCH_SECRET_KEY: SECRET });
    expect(result.code).toBe(2);
    expect(result.lines).toHaveLength(1);
    expect(result.lines[0]).toMatch(/^DATABASE_URL /);
  }, 60_000);

  it('listens where --port and --host say', async () => {
    const port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), 'dispatch-start-'));
    const child = spawn(process.execPath, [DISPATCH, 'serve', '--port', String(port), '--host', '127.0.0.1', '--data-dir', dataDir], { env: { ...process.env, PORT: '1' } });
    try {
      let output = '';
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()).includes('listening on') && resolve());
        child.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
      });
      expect(output).toContain(`listening on http://127.0.0.1:${port} (store: SQLite in ${dataDir};`);
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
  }, 60_000);
});
