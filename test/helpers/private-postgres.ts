/**
 * A PostgreSQL server of a test's own (initdb into a temporary directory, on a free port), so that the test
 * can restart or stop it without touching the shared one at 127.0.0.1:5432. As root, the server runs as
 * the `postgres` user, since PostgreSQL refuses to run as root.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { userInfo } from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './process.js';

export interface PrivatePostgres {
  url: string;
  restart(mode: 'fast' | 'immediate'): void;
  stop(): void;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const version = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(a) - Number(b)).at(-1)!;
  const bin = (name: string) => `/usr/lib/postgresql/${version}/bin/${name}`;
  const dir = mkdtempSync(join(tmpdir(), 'dispatch-pg-'));
  const asRoot = userInfo().uid === 0;
  if (asRoot) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres']).toString()), Number(execFileSync('id', ['-g', 'postgres']).toString()));
  const run = (command: string, args: string[]) =>
    execFileSync(asRoot ? 'runuser' : command, asRoot ? ['-u', 'postgres', '--', command, ...args] : args, { stdio: 'ignore' });
  const port = await freePort();
  const data = join(dir, 'data');
  run(bin('initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres']);
  run(bin('pg_ctl'), ['-D', data, '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`, '-l', join(dir, 'log'), '-w', 'start']);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    restart: (mode) => run(bin('pg_ctl'), ['-D', data, '-m', mode, '-w', 'restart']),
    stop: () => {
      run(bin('pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
