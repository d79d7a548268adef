/**
 * Real server processes for black-box tests: `dispatch serve` started as a user starts it (the compiled
 * program that test/global-setup.ts builds), on a free port, with the environment the test gives, resolved
 * once it listens.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { newSecretKey } from '../../src/store/sealed.js';
import { createTestDatabase } from './postgres.js';

export const ROOT = new URL('../../', import.meta.url).pathname;
/** The compiled `dispatch` program, by path, so it also runs from a working directory outside the repository. */
export const DISPATCH = join(ROOT, 'dist/src/cli/main.js');

export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

export interface ServeProcess {
  child: ChildProcess;
  url: string;
  output(): string;
  stop(): Promise<number | null>;
}

/**
 * Starts `dispatch serve` (the compiled `program`, this checkout's by default); resolves when it listens and has
 * printed the first key, if it makes one.
 */
export async function serve(env: Record<string, string>, program = DISPATCH): Promise<ServeProcess> {
  const port = env.PORT ?? String(await freePort());
  // The banner comes first; the key block, when there is one, ends with the curl line.
  const ready = (output: string) => output.includes('listening on') && (!output.includes('Created the first API key') || output.includes("-d '"));
  return { ...(await startDispatch(['serve'], { ...env, PORT: port }, ready, program)), url: `http://127.0.0.1:${port}` };
}

/** Starts `dispatch worker`; resolves once it delivers. */
export function startWorker(env: Record<string, string>): Promise<ServeProcess> {
  return startDispatch(['worker'], env, (output) => output.includes('Dispatch worker'));
}

/**
 * Starts a long-running `dispatch` command (`serve`, `worker`, `listen`) with the test's environment; resolves
 * once its output says it is `ready`, and rejects if it exits before.
 */
export async function startDispatch(args: readonly string[], env: Record<string, string>, ready: (output: string) => boolean, program = DISPATCH): Promise<ServeProcess> {
  const command = args.join(' ');
  const child = spawn(process.execPath, [program, ...args], { cwd: ROOT, env: { ...process.env, ...env } });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (ready(output)) resolve();
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`${command} exited with ${code}: ${output}`)));
  });
  return {
    child,
    url: '',
    output: () => output,
    stop: () => {
      const exited = new Promise<number | null>((r) => child.once('exit', r));
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** The secret of the first key a server printed. */
export function printedKey(output: string): string {
  const key = /^\s+(sk_test_[0-9A-Za-z]{40})$/m.exec(output)?.[1];
  if (!key) throw new Error(`no key printed in: ${output}`);
  return key;
}

/**
 * What several `dispatch serve` processes share as one server: a fresh PostgreSQL database, one secret key
 * (every process seals and opens secrets with it) and one Redis, under a prefix of this run.
 */
export async function sharedStore(): Promise<{ env: Record<string, string>; drop: () => Promise<void> }> {
  const database = await createTestDatabase();
  const env = {
    DATABASE_URL: database.url,
    DISPATCH_SECRET_KEY: newSecretKey(),
    REDIS_URL: 'redis://127.0.0.1:6379',
    REDIS_PREFIX: `test-${randomBytes(4).toString('hex')}:`,
  };
  return { env, drop: database.drop };
}

export interface ProgramResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a program to its end without blocking this process: a test worker that waits on a synchronous child
 * for a minute misses the test runner's messages, and the run fails although every test passed.
 */
export function runProgram(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeout?: number; shell?: boolean; uid?: number; gid?: number } = {},
): Promise<ProgramResult> {
  return new Promise((resolve, reject) => {
    const { cwd, env = process.env, shell = false, uid, gid } = options;
    const child = spawn(command, args, { cwd, env, shell, stdio: ['ignore', 'pipe', 'pipe'], ...(uid !== undefined ? { uid } : {}), ...(gid !== undefined ? { gid } : {}) });
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = options.timeout ? setTimeout(() => child.kill('SIGKILL'), options.timeout) : undefined;
    child.once('error', reject);
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}
