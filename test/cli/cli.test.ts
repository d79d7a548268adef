/**
 * The `dispatch` program as a user runs it: exit codes (0 ok, 1 diagnostics or stale output, 2 usage),
 * the diagnostics it prints, and `keys create` (`--json`, `--quiet`) on a fresh store.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DISPATCH, ROOT, runProgram } from '../helpers/process.js';

// The generator's memo and check's record go to a scratch directory, never to the repository's.
const CACHE = mkdtempSync(join(tmpdir(), 'dispatch-cli-cache-'));

async function dispatch(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}) {
  const result = await runProgram(process.execPath, [DISPATCH, ...args], { cwd: options.cwd ?? ROOT, env: { ...process.env, DISPATCH_CACHE_DIR: CACHE, ...options.env } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** `generate --watch` over a workspace: its output so far, a poll, and an editor's save of faces/ai.yaml. */
function startWatch(dir: string, cacheDir: string) {
  const child = spawn(process.execPath, [DISPATCH, 'generate', '--watch', '--faces', join(dir, 'faces'), '--out', join(dir, 'generated')], {
    cwd: dir,
    env: { ...process.env, DISPATCH_CACHE_DIR: cacheDir },
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const face = join(dir, 'faces/ai.yaml');
  return {
    child,
    exited,
    output: () => output,
    /** Polls until `done` holds, to a deadline far beyond a run's duration, so a loaded machine only makes it slower. */
    until: async (done: () => boolean) => {
      for (let i = 0; i < 1200 && !done(); i++) await new Promise((r) => setTimeout(r, 50));
      expect(done(), output).toBe(true);
    },
    /** Saves the way editors do: write a new file, then rename it over the old one. */
    save: (from: string, to: string) => {
      writeFileSync(`${face}.tmp`, readFileSync(face, 'utf8').replace(from, to));
      renameSync(`${face}.tmp`, face);
    },
  };
}

/** A copy of the faces and the generated output, to break without touching the repository. */
function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dispatch-cli-'));
  cpSync(join(ROOT, 'faces'), join(dir, 'faces'), { recursive: true });
  cpSync(join(ROOT, 'generated'), join(dir, 'generated'), { recursive: true });
  return dir;
}

describe('dispatch', () => {
  it('check passes on the committed output and fails (1) on a stale file', async () => {
    const dir = workspace();
    expect((await dispatch(['check', '--faces', join(dir, 'faces'), '--out', join(dir, 'generated')])).code).toBe(0);
    writeFileSync(join(dir, 'generated/server/scopes.ts'), '// edited by hand\n');
    writeFileSync(join(dir, 'generated/leftover.ts'), '');
    const stale = await dispatch(['check', '--faces', join(dir, 'faces'), '--out', join(dir, 'generated')]);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('stale:   server/scopes.ts');
    expect(stale.stderr).toContain('extra:   leftover.ts');
    expect(stale.stderr).toContain('-// edited by hand');
  }, 60_000);

  it('check after generate hashes the files against the manifest, and still catches a one-byte hand edit', async () => {
    const dir = workspace();
    const env = { DISPATCH_CACHE_DIR: join(dir, 'cache') };
    const args = ['--faces', join(dir, 'faces'), '--out', join(dir, 'generated')];
    expect((await dispatch(['generate', ...args], { env })).code).toBe(0);
    const quick = await dispatch(['check', ...args], { env });
    expect(quick.code).toBe(0);
    expect(quick.stdout).toMatch(/generated\/ is current \(\d+ files hashed against the manifest/);

    const edited = join(dir, 'generated/docs/faces/keys.md');
    const text = readFileSync(edited, 'utf8');
    writeFileSync(edited, text.replace('keys', 'Keys'));
    const caught = await dispatch(['check', ...args], { env });
    expect(caught.code).toBe(1);
    expect(caught.stderr).toContain('stale:   docs/faces/keys.md');

    writeFileSync(edited, text);
    expect((await dispatch(['check', '--full', ...args], { env })).stdout).toContain('regenerated and compared');
  }, 120_000);

  it("a warm generate follows an event's emitters across faces, as a cold one does", async () => {
    const dir = workspace();
    const env = { DISPATCH_CACHE_DIR: join(dir, 'cache') };
    const args = ['--faces', join(dir, 'faces'), '--out', join(dir, 'generated')];
    expect((await dispatch(['generate', ...args], { env })).code).toBe(0);
    // ai.generate starts emitting an event of the auth face; auth.yaml itself is unchanged.
    const face = join(dir, 'faces/ai.yaml');
    writeFileSync(face, readFileSync(face, 'utf8').replace('emits: [ai.generate.completed]', 'emits: [ai.generate.completed, auth.user.enabled]'));
    expect((await dispatch(['generate', ...args], { env })).code).toBe(0);
    expect(readFileSync(join(dir, 'generated/docs/faces/auth.md'), 'utf8')).toContain('[`ai.generate`](ai.md#aigenerate), [`auth.enableUser`](#authenableuser)');
    // Everything regenerated without the memo matches what the warm run wrote.
    const full = await dispatch(['check', '--full', ...args], { env });
    expect(full.code, full.stderr).toBe(0);
  }, 120_000);

  it('generate reports every diagnostic with file:line:col and exits 1 without writing', async () => {
    const dir = workspace();
    const face = join(dir, 'faces/ai.yaml');
    writeFileSync(face, readFileSync(face, 'utf8').replace('scope: ai:generate', 'scope: ai:gen').replace('[ai.generate.completed]', '[done]'));
    const result = await dispatch(['generate', '--faces', join(dir, 'faces'), '--out', join(dir, 'generated')], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/faces\/ai\.yaml:\d+:\d+ error unknown-scope Scope "ai:gen"/);
    expect(result.stderr).toMatch(/faces\/ai\.yaml:\d+:\d+ error unknown-event Event "done"/);
    expect(result.stderr).toContain('2 errors; nothing generated.');
  }, 60_000);

  it('generate and check --format json print one JSON document of the diagnostics for tools, and nothing else', async () => {
    const dir = workspace();
    const face = join(dir, 'faces/ai.yaml');
    writeFileSync(face, readFileSync(face, 'utf8').replace('scope: ai:generate', 'scope: ai:gen'));
    const args = ['--faces', join(dir, 'faces'), '--out', join(dir, 'json-out'), '--format', 'json'];
    const failed = await dispatch(['generate', ...args], { cwd: dir });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toBe('');
    const report = JSON.parse(failed.stdout) as { ok: boolean; diagnostics: { file: string; line: number; col: number; severity: string; code: string; message: string }[] };
    expect(report.ok).toBe(false);
    expect(report.diagnostics).toEqual([
      { file: expect.stringMatching(/faces\/ai\.yaml$/), line: expect.any(Number), col: expect.any(Number), severity: 'error', code: 'unknown-scope', message: expect.stringContaining('Did you mean "ai:generate"?') },
    ]);
    writeFileSync(face, readFileSync(face, 'utf8').replace('scope: ai:gen', 'scope: ai:generate'));
    const generated = JSON.parse((await dispatch(['generate', ...args], { cwd: dir })).stdout) as { ok: boolean; written: string[] };
    expect(generated.ok).toBe(true);
    expect(generated.written).toContain('openapi.json');
    const checked = await dispatch(['check', ...args], { cwd: dir });
    expect([checked.code, JSON.parse(checked.stdout)]).toEqual([0, { ok: true, diagnostics: [], stale: [], missing: [], extra: [], current: true }]);
    expect((await dispatch(['check', ...args.slice(0, -1), 'yaml'], { cwd: dir })).code).toBe(2);
  }, 60_000);

  it('generate --watch regenerates on every save, files replaced by rename included', async () => {
    const dir = workspace();
    const watch = startWatch(dir, CACHE);
    const page = () => readFileSync(join(dir, 'generated/docs/faces/ai.md'), 'utf8');
    try {
      await watch.until(() => watch.output().includes('Watching'));
      watch.save('scope: ai:generate', 'scope: ai:gen');
      await watch.until(() => watch.output().includes('unknown-scope'));
      watch.save('scope: ai:gen\n', 'scope: ai:generate\n');
      watch.save('summary: Generate text from a prompt.', 'summary: Generate text, quickly.');
      await watch.until(() => page().includes('Generate text, quickly.'));
    } finally {
      watch.child.kill();
    }
  }, 150_000);

  it('generate --watch saves its memo once edits pause, and when stopped right after an edit', async () => {
    const dir = workspace();
    const cache = mkdtempSync(join(tmpdir(), 'dispatch-watch-cache-'));
    const memoFile = join(cache, 'memo.json');
    const watch = startWatch(dir, cache);
    const runs = () => watch.output().split('\n').filter((line) => / written, \d+ deleted/.test(line)).length;
    try {
      await watch.until(() => watch.output().includes('Watching'));
      // The first run's memo is saved a second after it, with no edit since.
      await watch.until(() => existsSync(memoFile));
      watch.save('summary: Generate text from a prompt.', 'summary: Generate text, at once.');
      await watch.until(() => runs() === 2);
      // Stopped (most likely before its quiet save), the watch saves the edit's work on the way out.
      watch.child.kill('SIGINT');
      expect(await watch.exited).toBe(130);
      expect(readFileSync(memoFile, 'utf8')).toContain('Generate text, at once.');
    } finally {
      watch.child.kill();
    }
  }, 150_000);

  it('exits 2 on a usage error', async () => {
    expect((await dispatch(['generate', '--no-such-flag'])).code).toBe(2);
    expect((await dispatch(['keys', 'create', '--mode', 'staging'], { env: { DATA_DIR: mkdtempSync(join(tmpdir(), 'd-')) } })).code).toBe(2);
  }, 60_000);

  it('keys create --json prints the new key; keys list shows it', async () => {
    const env = { DATA_DIR: mkdtempSync(join(tmpdir(), 'dispatch-keys-')) };
    const created = await dispatch(['keys', 'create', '--mode', 'test', '--scopes', '*', '--entities', '*', '--json'], { env });
    expect(created.code).toBe(0);
    const key = JSON.parse(created.stdout) as { id: string; key: string; mode: string; scopes: string[]; entities: string };
    expect(key).toMatchObject({ mode: 'test', scopes: ['*'], entities: '*' });
    expect(key.id).toMatch(/^key_/);
    expect(key.key).toMatch(/^sk_test_[0-9A-Za-z]{40}$/);
    const listed = await dispatch(['keys', 'list'], { env });
    expect(listed.stdout).toContain(key.id);
    expect(listed.stdout).not.toContain(key.key);
    expect((await dispatch(['keys', 'revoke', key.id], { env })).code).toBe(0);
    expect((await dispatch(['keys', 'list'], { env })).stdout).not.toContain(key.id);
  }, 60_000);

  it('keys create --quiet prints the secret alone, for a shell variable', async () => {
    const env = { DATA_DIR: mkdtempSync(join(tmpdir(), 'dispatch-keys-')) };
    const created = await dispatch(['keys', 'create', '--mode', 'test', '--tier', 'pro', '--quiet'], { env });
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^sk_test_[0-9A-Za-z]{40}\n$/);
    const listed = await dispatch(['keys', 'list'], { env });
    expect(listed.stdout).toContain(`${created.stdout.slice(0, 12)}…${created.stdout.trim().slice(-4)}  tier=pro`);
    expect((await dispatch(['keys', 'create', '--mode', 'test', '--quiet', '--json'], { env })).code).toBe(2);
  }, 60_000);
});
