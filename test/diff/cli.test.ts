/**
 * `dispatch diff` as CI runs it: a scratch git repository holding the faces, one face edited after the
 * commit, and the program run against HEAD; its exit codes (1 for a breaking change, 2 when a catalogue
 * cannot be read or does not build), the position line and the `--json` shape.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DISPATCH, ROOT, runProgram } from '../helpers/process.js';

let repo: string;
/** `line:col` of the edited scope's value in the working tree's ai.yaml. */
let scopeAt: string;

async function dispatch(...args: string[]) {
  const result = await runProgram(process.execPath, [DISPATCH, 'diff', ...args], { cwd: repo });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

beforeAll(async () => {
  repo = mkdtempSync(join(tmpdir(), 'dispatch-diff-'));
  cpSync(join(ROOT, 'faces'), join(repo, 'faces'), { recursive: true });
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.com', ...args], { cwd: repo });
  git('init', '--quiet');
  git('add', 'faces');
  git('commit', '--quiet', '-m', 'faces');
  // ai.generate now needs another scope: keys that could call it no longer can.
  const file = join(repo, 'faces/ai.yaml');
  const text = readFileSync(file, 'utf8');
  const edited = text.replace('scope: ai:generate', 'scope: ai:embed');
  writeFileSync(file, edited);
  const before = edited.slice(0, edited.indexOf('scope: ai:embed') + 'scope: '.length).split('\n');
  scopeAt = `${before.length}:${before.at(-1)!.length + 1}`;
});

describe('dispatch diff', () => {
  it('exits 1 with the breaking change at its file:line:col', async () => {
    const result = await dispatch('--base', 'HEAD');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`faces/ai.yaml:${scopeAt} error breaking-change Changes the scope of \`ai.generate\` (\`ai:generate\` → \`ai:embed\`)`);
    expect(result.stdout).toMatch(/^1 breaking change \(0 gated behind a new version announced in time\), 0 additive changes against HEAD\.$/m);
  }, 60_000);

  it('prints { base, breaking, additive } with --json', async () => {
    const result = await dispatch('--base', 'HEAD', '--json');
    expect(result.code).toBe(1);
    const [line, col] = scopeAt.split(':').map(Number);
    expect(JSON.parse(result.stdout)).toEqual({
      base: 'HEAD',
      breaking: [
        expect.objectContaining({
          class: 'scope-changed',
          action: 'ai.generate',
          version: '2026-01-01',
          versions: ['2026-01-01', '2026-09-01', '2027-03-01'],
          file: 'faces/ai.yaml',
          line,
          col,
          gated: false,
          error: true,
          message: expect.stringContaining('ai.generate'),
        }),
      ],
      additive: [],
    });
  }, 60_000);

  it('exits 2 with one line when the base cannot be read', async () => {
    const result = await dispatch('--base', 'no-such-ref');
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe('git does not know the ref "no-such-ref".');
  }, 60_000);

  it('exits 2 with one line when the working tree catalogue does not build', async () => {
    // A faces directory of the working tree whose platform.yaml is not YAML: nothing can be compared.
    mkdirSync(join(repo, 'broken'));
    writeFileSync(join(repo, 'broken/platform.yaml'), 'scopes: [\n');
    const result = await dispatch('--base', 'HEAD', '--faces', 'broken');
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^The catalogue in broken does not build \(1 error; first: broken\/platform\.yaml:\d+:\d+ error yaml-syntax /)]);
    expect(result.stdout).toBe('');
  }, 60_000);

  it('reports a field removed behind a version announced too late at its place, not as a catalogue that does not build', async () => {
    const platform = join(repo, 'faces/platform.yaml');
    const ai = join(repo, 'faces/ai.yaml');
    const [platformText, aiText] = [readFileSync(platform, 'utf8'), readFileSync(ai, 'utf8')];
    writeFileSync(platform, platformText.replace('\nlimits:', '  - date: 2027-01-01\n    status: stable\n    announced: 2026-12-20\n    summary: Drops the model name of embeddings.\n\nlimits:'));
    writeFileSync(ai, aiText.replace('model: { type: string, description: The model that answered. }', 'model: { type: string, description: The model that answered., until: 2027-01-01 }'));
    try {
      const result = await dispatch('--base', 'HEAD');
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/faces\/ai\.yaml:\d+:\d+ error breaking-change-notice Version 2027-01-01 removes data field `model` of event `ai\.generate\.completed` \(event-field-removed\)/);
    } finally {
      writeFileSync(platform, platformText);
      writeFileSync(ai, aiText);
    }
  }, 60_000);

  it('compares with a base that a lint rule added since then would refuse', async () => {
    // The base answers a 401 with a type today's rules refuse; the working tree has it right.
    const file = join(repo, 'faces/auth.yaml');
    const now = readFileSync(file, 'utf8');
    writeFileSync(file, now.replace(/(code: invalid_credentials\n\s+status: 401\n\s+type: )authentication_error/, '$1invalid_request_error'));
    execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.com', 'commit', '--quiet', '-m', 'an older rule set', '--', 'faces/auth.yaml'], { cwd: repo });
    writeFileSync(file, now);
    const result = await dispatch('--base', 'HEAD');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error breaking-change Changes the scope of `ai.generate`');
  }, 60_000);
});
