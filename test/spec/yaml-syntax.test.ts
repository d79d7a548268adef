/**
 * A face file with a YAML syntax error, written to a faces directory as an author leaves it: the mistake is
 * reported once, at its line and column, saying what to write; the rest of that file and every other file
 * are still checked, with no report that only follows from the part left unread.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildCatalog } from '../../src/spec/index.js';
import { DISPATCH, runProgram } from '../helpers/process.js';
import { PLATFORM } from './rules/demo.js';

/** Two actions; the cases break `echo`, so that `again` (and its scope) shows what is still checked. */
const FACE = `face: demo
summary: A demo face.
since: 2026-01-01
events:
  demo.echo.done:
    summary: A message was echoed.
    data: { type: object }
actions:
  echo:
    summary: Echo a message.
    scope: demo:read
    emits: [demo.echo.done]
    payload:
      type: object
      properties:
        message: { type: string }
    result: { type: object }
    examples: [{ payload: {}, result: {} }]
    effect: read
    external: false
  again:
    summary: Echo again.
    scope: demo:read
    payload: { type: object }
    result: { type: object }
    examples: [{ payload: {}, result: {} }]
    effect: read
    external: false
`;

/** Another face, with a problem of its own (a version the platform does not declare), emitting demo's event. */
const OTHER = `face: other
summary: Another face.
since: 2026-02-30
actions:
  ping:
    summary: Ping.
    scope: demo:read
    emits: [demo.echo.done]
    payload: { type: object }
    result: { type: object }
    examples: [{ payload: {}, result: {} }]
    effect: read
    external: false
`;

const root = mkdtempSync(join(tmpdir(), 'dispatch-yaml-syntax-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A faces directory holding `files` beside the platform file. */
function facesDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(root, 'faces-'));
  writeFileSync(join(dir, 'platform.yaml'), PLATFORM);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

/** `line:col code message` of each diagnostic of a faces directory read from disk, as generate and check read it. */
function diagnose(files: Record<string, string>): string[] {
  return buildCatalog(facesDir(files)).diagnostics.map((d) => `${d.line}:${d.col} ${d.code} ${d.message}`);
}

describe('a YAML syntax error', () => {
  const mistakes: [name: string, from: string, to: string, expected: string][] = [
    [
      'a line indented more than the key above it',
      '    scope: demo:read\n    emits',
      '      scope: demo:read\n    emits',
      '11:7 yaml-syntax This line is indented more than "summary" above it, which already has its value: start "scope" at column 5, as "summary" does, to make it the next key.',
    ],
    [
      'a line indented between two keys above it',
      '    scope: demo:read\n    emits',
      '   scope: demo:read\n    emits',
      '11:4 yaml-syntax This line is indented less than "summary" above it and more than "echo": start "scope" at column 5 to put it beside "summary", or at column 3 to put it beside "echo".',
    ],
    [
      'a nested key indented more than the one above it',
      '      properties:\n        message',
      '        properties:\n        message',
      '15:9 yaml-syntax This line is indented more than "type" above it, which already has its value: start "properties" at column 7, as "type" does, to make it the next key.',
    ],
    ['a brace left open', 'message: { type: string }', 'message: { type: string', '16:18 yaml-syntax This "{" is never closed: end the mapping with "}".'],
    [
      'a quote left open',
      'summary: Echo a message.',
      'summary: "Echo a message.',
      '10:14 yaml-syntax This quoted value has no closing ": end it with " (a " inside it is written \\").',
    ],
    [
      'a value holding ": "',
      'summary: Echo a message.',
      'summary: Echo: a message.',
      '10:14 yaml-syntax This value holds ": ", which YAML reads as the start of a key: quote it, as in summary: "Echo: a message."',
    ],
    [
      'a value starting with a reserved character',
      'summary: Echo a message.',
      'summary: `echo` a message.',
      '10:14 yaml-syntax A value cannot start with "`" unless it is quoted: write summary: "`echo` a message."',
    ],
    [
      'a tab for indentation',
      '    effect: read\n    external: false\n  again',
      '\teffect: read\n    external: false\n  again',
      '19:1 yaml-syntax This line is indented with a tab, and YAML indents with spaces only: replace the tab with spaces.',
    ],
    [
      'a list item among the keys of a mapping',
      '    effect: read\n    external: false\n  again',
      '    - effect: read\n    external: false\n  again',
      '19:5 yaml-syntax This list item ("- ") stands among the keys of a mapping: remove the "- ", or put the list under a key of its own.',
    ],
    [
      'a key without its colon',
      '    effect: read\n    external: false\n  again',
      '    effect read\n    external: false\n  again',
      '19:5 yaml-syntax This line has no ":" after its key: write "key: value", or indent it more than the key above to go on with that key\'s value.',
    ],
    [
      'a second document',
      '    external: false\n  again',
      '    external: false\n---\n  again',
      '21:1 yaml-syntax This "---" starts a second YAML document, and the file holds one: remove it and what follows, or move that to a file of its own.',
    ],
  ];

  it.each(mistakes)('is reported once, at the mistake, saying what to write: %s', (_name, from, to, expected) => {
    expect(diagnose({ 'demo.yaml': FACE.replace(from, to) })).toEqual([expected]);
  });

  it('leaves out the block it is in and checks the rest of the file, as far as the face language goes', () => {
    const face = FACE.replace('    scope: demo:read\n    emits', '      scope: demo:read\n    emits').replace('scope: demo:read\n    payload', 'scope: demo:reed\n    payload');
    expect(diagnose({ 'demo.yaml': face })).toEqual([
      '11:7 yaml-syntax This line is indented more than "summary" above it, which already has its value: start "scope" at column 5, as "summary" does, to make it the next key.',
      '23:12 unknown-scope Scope "demo:reed" is not declared in platform.yaml. Did you mean "demo:read"?',
    ]);
  });

  it('in a top-level key still checks the rest of the file against the face language, without asking for that key', () => {
    const face = FACE.replace('summary: A demo face.', 'summary: "A demo face.').replace('    summary: Echo again.', '    summary: Echo again.\n    stream: yes');
    expect(diagnose({ 'demo.yaml': face })).toEqual([
      '2:10 yaml-syntax This quoted value has no closing ": end it with " (a " inside it is written \\").',
      '23:13 schema-violation actions.again.stream must be boolean',
    ]);
  });

  it('hides nothing in the other files, and no reference into the part left unread is reported', () => {
    const face = FACE.replace('    summary: A message was echoed.', '      summary: A message was echoed.');
    const found = buildCatalog(facesDir({ 'demo.yaml': face, 'other.yaml': OTHER })).diagnostics.map((d) => `${d.file.replace(/.*\//, '')}:${d.line}:${d.col} ${d.code}`);
    expect(found).toEqual(['demo.yaml:7:5 yaml-syntax', 'other.yaml:3:8 unknown-version']);
  });

  it('is printed by dispatch generate with every other problem, and nothing is generated', async () => {
    const dir = join(root, 'workspace');
    mkdirSync(join(dir, 'faces'), { recursive: true });
    writeFileSync(join(dir, 'faces/platform.yaml'), PLATFORM);
    writeFileSync(join(dir, 'faces/demo.yaml'), FACE.replace('    scope: demo:read\n    emits', '      scope: demo:read\n    emits').replace('scope: demo:read\n    payload', 'scope: demo:reed\n    payload'));
    writeFileSync(join(dir, 'faces/other.yaml'), OTHER);
    const run = await runProgram(process.execPath, [DISPATCH, 'generate', '--handlers', 'none'], { cwd: dir, env: { ...process.env, DISPATCH_CACHE_DIR: join(dir, 'cache') } });
    expect({ status: run.status, stderr: run.stderr.trim().split('\n') }).toEqual({
      status: 1,
      stderr: [
        'faces/demo.yaml:11:7 error yaml-syntax This line is indented more than "summary" above it, which already has its value: start "scope" at column 5, as "summary" does, to make it the next key.',
        'faces/demo.yaml:23:12 error unknown-scope Scope "demo:reed" is not declared in platform.yaml. Did you mean "demo:read"?',
        'faces/other.yaml:3:8 error unknown-version Version "2026-02-30" is not declared in platform.yaml. Did you mean "2026-01-01"?',
        '3 errors; nothing generated.',
      ],
    });
  }, 60_000);
});
