/**
 * scripts/provision.sh, which `npm test` runs first and .ci/run runs before `npm ci`: on this machine, where the
 * tests run, it finds everything present, so it would do nothing, and does nothing, quietly and at once; with
 * Chromium, or the Python of the SDK's tests, looked for where there is none, it names the packages it would install.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/process.js';

const scratch = mkdtempSync(join(tmpdir(), 'dispatch-provision-'));

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function provision(args: string[], env: Record<string, string> = {}) {
  const started = performance.now();
  const result = spawnSync('bash', ['scripts/provision.sh', ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, ...env } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, ms: performance.now() - started };
}

describe('scripts/provision.sh', () => {
  it('finds what the tests need present here, then does nothing and says nothing, well under a second', () => {
    expect(provision(['--check'])).toMatchObject({ status: 0, stdout: '', stderr: '' });
    const run = provision([]);
    expect(run).toMatchObject({ status: 0, stdout: '', stderr: '' });
    expect(run.ms).toBeLessThan(1000);
  });

  it('finds what npm ci needs to compile better-sqlite3 present here', () => {
    expect(provision(['--toolchain', '--check'])).toMatchObject({ status: 0, stdout: '', stderr: '' });
  });

  it('names chromium, and only it, when Chromium is not where the browser tests look', () => {
    expect(provision(['--check'], { PROVISION_CHROMIUM: join(scratch, 'chromium') })).toMatchObject({ status: 1, stdout: 'would install: chromium (apt-get)\n', stderr: '' });
  });

  it('names the Python packages of the SDK\'s tests, and only them, when their interpreter is not there', () => {
    const python = ['python3-httpx', 'python3-pydantic', 'python3-pytest', 'python3-pytest-asyncio', 'python3-mypy', 'python3-venv'];
    expect(provision(['--check'], { PROVISION_PYTHON: join(scratch, 'python3') })).toMatchObject({ status: 1, stdout: `would install: ${python.join(' ')} (apt-get)\n`, stderr: '' });
  });

  it('refuses an argument it does not know, on one line', () => {
    expect(provision(['--dry'])).toMatchObject({ status: 2, stdout: '', stderr: 'scripts/provision.sh: unknown argument --dry (use --check, --toolchain)\n' });
  });
});
