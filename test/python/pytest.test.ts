/**
 * The Python SDK (generated/python/) on Debian's python3 and its packages: its pytest tests against a real server
 * process, mypy over a sample program that uses it, and its surface, read by importing the package, against the
 * TypeScript client's: every face and method of one is in the other. Python writes no bytecode and keeps no
 * cache in the checkout, so `check` still finds generated/ as generated.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createClient } from '../../generated/client/index.js';
import { pythonName } from '../../src/generate/python-names.js';
import { ROOT } from '../helpers/process.js';

const PYTHON = '/usr/bin/python3';
const scratch = mkdtempSync(join(tmpdir(), 'dispatch-python-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function python(args: string[]) {
  const env = { ...process.env, PYTHONPATH: [join(ROOT, 'generated/python'), join(ROOT, 'test/python')].join(':'), PYTHONDONTWRITEBYTECODE: '1' };
  const result = spawnSync(PYTHON, args, { cwd: ROOT, encoding: 'utf8', env, timeout: 120_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}`, stdout: result.stdout };
}

describe('the Python SDK', () => {
  it('passes its pytest tests against a real server', () => {
    const run = python(['-m', 'pytest', '-q', '-rs', '-p', 'no:cacheprovider', '-o', 'asyncio_mode=strict', 'test/python']);
    expect(run.status, run.output).toBe(0);
    expect(run.output).toMatch(/\d+ passed/);
  }, 120_000);

  it('type-checks a program that uses it with mypy', () => {
    const run = python(['-m', 'mypy', '--cache-dir', join(scratch, 'mypy'), '--python-version', '3.11', 'test/python/sample_program.py']);
    expect(run.status, run.output).toBe(0);
    expect(run.output).toContain('Success');
  }, 120_000);

  it('defines the faces and methods the TypeScript client has, with the same names in snake_case', () => {
    const run = python(['test/python/surface.py']);
    expect(run.status, run.output).toBe(0);
    type Surface = { faces: Record<string, string[]>; methods: string[] };
    const { sync, async } = JSON.parse(run.stdout) as { sync: Surface; async: Surface };
    expect(async).toEqual(sync);

    const client = createClient({ apiKey: 'sk_test_x', entityId: 'demo' }) as unknown as Record<string, unknown>;
    const typescript: Record<string, string[]> = {};
    for (const [name, value] of Object.entries(client)) {
      if (typeof value === 'object' && value !== null) typescript[pythonName(name)] = Object.keys(value).map((m) => pythonName(m, new Set(['options', 'stream']))).sort();
    }
    // Beside its actions, the webhooks face of the Python client verifies deliveries, as the TypeScript client's
    // `webhooks` module does.
    const helpers = ['generate_test_headers', 'unwrap'];
    expect({ ...sync.faces, webhooks: sync.faces.webhooks!.filter((m) => !helpers.includes(m)) }).toEqual(typescript);
    expect(sync.faces.webhooks).toEqual(expect.arrayContaining(helpers));
    expect(sync.methods).toEqual(expect.arrayContaining(['batch', 'call']));
    expect(typeof (client as { batch?: unknown }).batch).toBe('function');
  });
});
