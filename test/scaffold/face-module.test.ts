/**
 * A face file copied into faces/ without its module: `generate` says what to write and which command writes
 * it, and `dispatch new face <name>` writes the module (a handler skeleton for each action, typed by the
 * interface generate then writes) and a test of each action, leaving the face file as it was. Run in a
 * scratch layout as test/scaffold/new.test.ts sets one up.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Project } from 'ts-morph';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DISPATCH, ROOT, runProgram } from '../helpers/process.js';

const dir = mkdtempSync(join(tmpdir(), 'dispatch-face-module-'));
const at = (...parts: string[]) => join(dir, ...parts);
const LOCATIONS = ['--faces', at('faces'), '--handlers', at('src/faces'), '--out', at('generated')];

const GADGETS = `face: gadgets
summary: Gadgets, copied from another project.
since: 2026-01-01
actions:
  get:
    summary: Read a gadget.
    scope: storage:read
    payload: { type: object, required: [id], properties: { id: { type: string } } }
    result: { type: object, required: [id], properties: { id: { type: string } } }
    examples:
      - payload: { id: g1 }
        result: { id: g1 }
    effect: read
    external: false
  rename:
    summary: Rename a gadget.
    scope: storage:read
    payload: { type: object, required: [id, name], properties: { id: { type: string }, name: { type: string } } }
    result: { type: object, required: [id], properties: { id: { type: string } } }
    examples:
      - payload: { id: g1, name: Gizmo }
        result: { id: g1 }
    effect: write
    idempotent: true
    external: false
`;

const dispatch = async (...args: string[]) => {
  const run = await runProgram(process.execPath, [DISPATCH, ...args, ...LOCATIONS], { cwd: dir, env: { ...process.env, DISPATCH_CACHE_DIR: at('cache') } });
  return { code: run.status, stdout: run.stdout.trimEnd().split('\n'), stderr: run.stderr.trimEnd().split('\n') };
};

let generated: Awaited<ReturnType<typeof dispatch>>;
let scaffolded: Awaited<ReturnType<typeof dispatch>>;

beforeAll(async () => {
  cpSync(join(ROOT, 'faces'), at('faces'), { recursive: true });
  writeFileSync(at('faces/gadgets.yaml'), GADGETS);
  mkdirSync(at('src/faces'), { recursive: true });
  for (const part of ['core', 'server']) symlinkSync(join(ROOT, 'src', part), at(`src/${part}`));
  for (const file of readdirSync(join(ROOT, 'src/faces'))) symlinkSync(join(ROOT, 'src/faces', file), at(`src/faces/${file}`));
  symlinkSync(join(ROOT, 'node_modules'), at('node_modules'));
  generated = await dispatch('generate');
  scaffolded = await dispatch('new', 'face', 'gadgets', '--tests', at('test'));
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a face file copied without its module', () => {
  it('fails generate with what to write and the command that writes it', () => {
    expect({ code: generated.code, stderr: generated.stderr }).toEqual({
      code: 1,
      stderr: [
        'faces/gadgets.yaml:1:7 error handler-module-missing Face "gadgets" has no module src/faces/gadgets/index.ts: `npx dispatch new face gadgets` writes it, ' +
          'with a handler for each action that answers 501 until written; or write it exporting `const gadgets: FaceModule<GadgetsHandlers>`, ' +
          'with GadgetsHandlers imported from generated/server/types.ts, which the next generate writes.',
        '1 error; nothing generated.',
      ],
    });
  });

  it('gets its module and a test of each action from dispatch new face, which then generates', () => {
    expect(scaffolded.stderr).toEqual(['']);
    expect(scaffolded.code).toBe(0);
    expect(scaffolded.stdout.filter((line) => line.startsWith('  created'))).toEqual([
      '  created src/faces/gadgets/index.ts',
      '  created src/faces/gadgets/handlers.ts',
      '  created src/faces/gadgets/tables.ts',
      '  created test/gadgets/get.test.ts',
      '  created test/gadgets/rename.test.ts',
    ]);
    expect(scaffolded.stdout.at(-1)).toBe('Next: write the handlers of gadgets (get, rename) in src/faces/gadgets/handlers.ts; until then `npx vitest run test/gadgets` fails with 501 not_implemented.');
  });

  it('keeps the face file as it was', () => {
    expect(readFileSync(at('faces/gadgets.yaml'), 'utf8')).toBe(GADGETS);
  });

  it('writes a module that type-checks against the generated interface, with a handler for each action', () => {
    const project = new Project({ tsConfigFilePath: join(ROOT, 'tsconfig.json'), skipAddingFilesFromTsConfig: true });
    const handlers = project.addSourceFileAtPath(at('src/faces/gadgets/handlers.ts'));
    const index = project.addSourceFileAtPath(at('src/faces/gadgets/index.ts'));
    project.resolveSourceFileDependencies();
    expect([...handlers.getPreEmitDiagnostics(), ...index.getPreEmitDiagnostics()].map((d) => d.getMessageText())).toEqual([]);
    expect(handlers.getVariableDeclarationOrThrow('handlers').getInitializerOrThrow().getText()).toMatch(/^\{\n {2}async get\(_payload, _ctx\) \{[\s\S]*\n {2}async rename\(_payload, _ctx\) \{/);
  }, 60_000);
});
