/**
 * The Python SDK (generated/python/) on Debian's python3 and its packages: its pytest tests against a real server
 * process, mypy over a sample program that uses it (and over one it must refuse), and its surface, read by
 * importing the package, against the TypeScript client's: every face and method of one is in the other. Python
 * writes no bytecode and keeps no cache in the checkout, so `check` still finds generated/ as generated.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import * as typescriptClient from '../../generated/client/index.js';
import { createClient, DispatchError } from '../../generated/client/index.js';
import { catalogErrors } from '../../src/spec/action-errors.js';
import { buildCatalog } from '../../src/spec/index.js';
import { pythonName } from '../../src/generate/python-names.js';
import { ROOT } from '../helpers/process.js';

const PYTHON = '/usr/bin/python3';
const catalog = buildCatalog(join(ROOT, 'faces')).catalog!;
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

  it('refuses with mypy a misspelt key in a nested argument', () => {
    const run = python(['-m', 'mypy', '--cache-dir', join(scratch, 'mypy'), '--python-version', '3.11', 'test/python/sample_wrong_key.py']);
    expect(run.status, run.output).toBe(1);
    expect(run.output).toContain('Extra key "unit_amount" for TypedDict "BillingPriceTierParam"');
    expect(run.output).toContain('Found 1 error');
  }, 120_000);

  it('defines the faces and methods the TypeScript client has, with the same names in snake_case', () => {
    const run = python(['test/python/surface.py']);
    expect(run.status, run.output).toBe(0);
    type Surface = { faces: Record<string, string[]>; methods: string[] };
    const { sync, async, errors } = JSON.parse(run.stdout) as { sync: Surface; async: Surface; errors: Record<string, string> };
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

    // One class per error type of the catalogue in both clients, named alike but where Python's built-ins hold
    // the TypeScript name.
    const types = [...new Set(catalogErrors(catalog).map((e) => e.type))].sort();
    expect(Object.keys(errors).sort()).toEqual(types);
    const renamed: Record<string, string> = { PermissionDeniedError: 'PermissionError', ActionTimeoutError: 'TimeoutError' };
    const exported = typescriptClient as unknown as Record<string, unknown>;
    for (const type of types) {
      const ErrorClass = exported[renamed[errors[type]!] ?? errors[type]!] as typeof DispatchError;
      const made = new ErrorClass({ type, code: 'c', message: 'm' }, 400, undefined, new Headers());
      expect(made, type).toBeInstanceOf(DispatchError);
      expect(made.name, type).toBe(renamed[errors[type]!] ?? errors[type]);
    }
  });
});
