/**
 * `dispatch new face` and `dispatch new action` as a user runs them, in a scratch layout: a copy of faces/,
 * a handler directory holding links to the shipped handler modules, empty test and output directories, and
 * src/core, src/server and node_modules linked to the repository's,
 * so that the scaffolded module and the generated tree resolve as they do in place. The face file builds
 * clean and keeps the author's comments; the handler module has both methods and type-checks against the
 * generated interface; served, an action answers 501 not_implemented in the error envelope; refused input
 * exits 2 with one line on stderr and writes nothing.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Node, Project, SyntaxKind } from 'ts-morph';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Catalogue } from '../../src/core/catalogue.js';
import type { AnyFaceModule } from '../../src/core/face-module.js';
import { buildCatalog } from '../../src/spec/index.js';
import { versionInForce } from '../../src/spec/version-in-force.js';
import { DISPATCH, ROOT } from '../helpers/process.js';
import { startServer } from '../helpers/server.js';

const dir = mkdtempSync(join(tmpdir(), 'dispatch-new-'));
const at = (...parts: string[]) => join(dir, ...parts);
const LOCATIONS = ['--faces', at('faces'), '--handlers', at('src/faces'), '--out', at('generated'), '--tests', at('test')];

/** Runs `dispatch new`; asynchronous, so that the test's worker keeps answering the runner while it generates. */
async function dispatch(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [DISPATCH, 'new', ...args, ...LOCATIONS], { cwd: dir });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}

/** Every file under the scratch layout with its text (links to the repository left out). */
function snapshot(): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isSymbolicLink()) continue;
      if (entry.isDirectory()) walk(full);
      else files.set(full, readFileSync(full, 'utf8'));
    }
  };
  walk(dir);
  return files;
}

const AUTHOR_COMMENT = '# Widgets: kept by hand, and kept by `dispatch new action`.';
let faceRun: Awaited<ReturnType<typeof dispatch>>;
let actionRun: Awaited<ReturnType<typeof dispatch>>;
let faceFileBefore: string;

beforeAll(async () => {
  cpSync(join(ROOT, 'faces'), at('faces'), { recursive: true });
  mkdirSync(at('src'));
  for (const part of ['core', 'server']) symlinkSync(join(ROOT, 'src', part), at(`src/${part}`));
  // The shipped faces' handler modules, one link each, so the directory the scaffold writes into stays its own.
  mkdirSync(at('src/faces'));
  for (const file of readdirSync(join(ROOT, 'src/faces'))) symlinkSync(join(ROOT, 'src/faces', file), at(`src/faces/${file}`));
  symlinkSync(join(ROOT, 'node_modules'), at('node_modules'));
  faceRun = await dispatch('face', 'widgets', '--scope', 'storage:read');
  // The author comments the new face file before the next action arrives.
  const faceFile = at('faces/widgets.yaml');
  faceFileBefore = readFileSync(faceFile, 'utf8').replace('\nface: widgets\n', `\n${AUTHOR_COMMENT}\nface: widgets # the face's name\n`);
  writeFileSync(faceFile, faceFileBefore);
  actionRun = await dispatch('action', 'widgets', 'list', '--scope', 'storage:read');
}, 90_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('dispatch new face, then new action', () => {
  it('both succeed, list what they wrote and name the failing test to run next', () => {
    expect(faceRun.stderr).toBe('');
    expect(faceRun.code).toBe(0);
    expect(faceRun.stdout).toContain('created faces/widgets.yaml');
    for (const file of ['index.ts', 'handlers.ts', 'tables.ts']) expect(faceRun.stdout).toContain(`created src/faces/widgets/${file}`);
    expect(faceRun.stdout).toContain('created test/widgets/get.test.ts');
    expect(faceRun.stdout).toContain('wrote   generated/server/types.ts');
    expect(faceRun.stdout).toContain('`npx vitest run test/widgets/get.test.ts` fails');
    expect(actionRun.stderr).toBe('');
    expect(actionRun.code).toBe(0);
    expect(actionRun.stdout).toContain('updated faces/widgets.yaml');
    expect(actionRun.stdout).toContain('updated src/faces/widgets/handlers.ts');
    expect(actionRun.stdout).toContain('`npx vitest run test/widgets/list.test.ts` fails');
  });

  it('leaves a face file that builds with no diagnostics, first served in the stable version in force today', () => {
    const { catalog, diagnostics } = buildCatalog(at('faces'), { handlersDir: at('src/faces') });
    expect(diagnostics.filter((d) => d.severity === 'error' || d.file.endsWith('widgets.yaml'))).toEqual([]);
    const widgets = catalog!.faces.find((f) => f.name === 'widgets')!;
    // Not the newest declared version, which may only be announced: calls that name no version reach the face at once.
    expect(widgets.since).toBe(versionInForce(catalog!.platform, new Date().toISOString().slice(0, 10)));
    // Each says what a call does, as its name suggests: the author corrects it.
    expect(widgets.actions.map((a) => [a.name, a.scope, a.effect, a.external, a.examples.length])).toEqual([
      ['get', 'storage:read', 'read', false, 1],
      ['list', 'storage:read', 'read', false, 1],
    ]);
  });

  it('keeps the face file as the author left it, comments included, and adds the action after the others', () => {
    const text = readFileSync(at('faces/widgets.yaml'), 'utf8');
    expect(text.startsWith(faceFileBefore)).toBe(true);
    expect(text).toContain(AUTHOR_COMMENT);
    expect(text.split('\n')[0]).toBe('# yaml-language-server: $schema=../generated/editor/face.schema.json');
    expect(text.slice(faceFileBefore.length)).toMatch(/^ {2}list:\n {4}summary: /);
  });

  it('writes a module whose exported handlers have both methods', () => {
    const source = new Project({ useInMemoryFileSystem: true }).createSourceFile('/handlers.ts', readFileSync(at('src/faces/widgets/handlers.ts'), 'utf8'));
    const handlers = source.getVariableDeclarationOrThrow('handlers');
    expect(handlers.isExported()).toBe(true);
    expect(handlers.getTypeNode()?.getText()).toBe('WidgetsHandlers');
    const methods = handlers.getInitializerIfKindOrThrow(SyntaxKind.ObjectLiteralExpression).getProperties();
    expect(methods.map((m) => (Node.isMethodDeclaration(m) ? m.getName() : m.getKindName()))).toEqual(['get', 'list']);
  });

  it('generates WidgetsHandlers with both methods and registers the module', () => {
    const types = readFileSync(at('generated/server/types.ts'), 'utf8');
    const handlers = types.slice(types.indexOf('export interface WidgetsHandlers {'));
    expect(handlers.slice(0, handlers.indexOf('\n}'))).toMatch(/\n {2}get\(payload: WidgetsGetPayload, ctx: HandlerContext\): Promise<WidgetsGetResult>;[\s\S]*\n {2}list\(payload: WidgetsListPayload/);
    expect(readFileSync(at('generated/server/modules.ts'), 'utf8')).toContain("import { widgets } from '../../src/faces/widgets/index.js';");
  });

  it('writes a module that type-checks against the generated interface (and one missing a method does not)', () => {
    const project = new Project({ tsConfigFilePath: join(ROOT, 'tsconfig.json'), skipAddingFilesFromTsConfig: true });
    const module = project.addSourceFileAtPath(at('src/faces/widgets/handlers.ts'));
    const index = project.addSourceFileAtPath(at('src/faces/widgets/index.ts'));
    project.resolveSourceFileDependencies();
    const messages = (source: typeof module) =>
      source.getPreEmitDiagnostics().map((d) => {
        const text = d.getMessageText();
        return typeof text === 'string' ? text : text.getMessageText();
      });
    expect(messages(module)).toEqual([]);
    expect(messages(index)).toEqual([]);
    const withoutList = module.getFullText().replace(/\n\n {2}async list\([\s\S]*?\n {2}},/, '');
    const broken = project.createSourceFile(at('src/faces/widgets/handlers-broken.ts'), withoutList);
    expect(messages(broken).join('\n')).toMatch(/Property 'list' is missing/);
  }, 30_000);

  it('writes tests that call each action over HTTP and expect its example result', () => {
    for (const action of ['get', 'list']) {
      const text = readFileSync(at(`test/widgets/${action}.test.ts`), 'utf8');
      expect(text).toContain("import { startServer, type TestServer } from '../helpers/server.js';");
      expect(text).toContain(`await server.post({ face: 'widgets', action: '${action}', payload: { id: 'example' } });`);
      expect(text).toContain("expect(reply.body.data).toEqual({ id: 'example' });");
    }
  });

  it('serves skeletons that answer 501 not_implemented in the error envelope, so those tests fail until written', async () => {
    const load = (path: string) => import(pathToFileURL(at('generated/server', path)).href) as Promise<Record<string, any>>;
    const [{ faces, eventTypes }, { platform, errors }, { scopes }, { widgets }] = await Promise.all([
      load('dispatch.ts'),
      load('platform.ts'),
      load('scopes.ts'),
      import(pathToFileURL(at('src/faces/widgets/index.ts')).href) as Promise<{ widgets: AnyFaceModule }>,
    ]);
    const catalogue: Catalogue = { faces, eventTypes, platform, scopes, errors, modules: [widgets] };
    const server = await startServer({ catalogue });
    try {
      const reply = await server.post({ face: 'widgets', action: 'list', payload: { id: 'example' } });
      expect(reply.status).toBe(501);
      expect(reply.body.error).toMatchObject({ type: 'api_error', code: 'not_implemented', message: 'widgets.list is not implemented yet.' });
      expect(reply.body.meta.requestId).toMatch(/^req_/);
    } finally {
      await server.close();
    }
  });
});

describe('dispatch new refuses bad input with exit 2, one line on stderr and nothing written', () => {
  it.each([
    ['an unknown scope', ['face', 'gadgets', '--scope', 'storage:fly'], /^error: unknown scope "storage:fly"; platform\.yaml declares: .*storage:read/],
    ['a new face without a scope to choose', ['face', 'gadgets'], /^error: --scope is required; platform\.yaml declares: /],
    ['a duplicate action', ['action', 'widgets', 'get', '--scope', 'storage:read'], /^error: faces\/widgets\.yaml already declares action "get"\.$/],
    ['a built-in face', ['face', 'batch', '--scope', 'batch:run'], /^error: face name "batch" is reserved: it is a built-in face/],
    ['a name the client reserves', ['face', 'stream', '--scope', 'storage:read'], /^error: face name "stream" is reserved: /],
    ['a JavaScript reserved word', ['face', 'class', '--scope', 'storage:read'], /^error: face name "class" is reserved: /],
    ['an invalid face name', ['face', 'Gadgets', '--scope', 'storage:read'], /^error: face name "Gadgets" is not valid: it must match \^\[a-z\]\[a-z0-9\]\*\$/],
    ['an invalid action name', ['action', 'widgets', 'get-all'], /^error: action name "get-all" is not valid: /],
    ['an unknown face', ['action', 'gadgets', 'get', '--scope', 'storage:read'], /^error: unknown face "gadgets"; the faces are: ai, /],
    ['an existing face', ['face', 'widgets', '--scope', 'storage:read'], /^error: face "widgets" already exists \(faces\/widgets\.yaml\)\.$/],
  ])('%s', async (_what, args, message) => {
    const before = snapshot();
    const result = await dispatch(...args);
    expect(result.code).toBe(2);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
    expect(result.stdout).toBe('');
    expect(snapshot()).toEqual(before);
    expect(existsSync(at('faces/gadgets.yaml')) || existsSync(at('src/faces/gadgets')) || existsSync(at('test/gadgets'))).toBe(false);
  });

  it('the scratch layout holds what the scaffold wrote and nothing else beside the copies', () => {
    expect(statSync(at('src/faces')).isDirectory()).toBe(true);
    const shipped = readdirSync(join(ROOT, 'src/faces'));
    expect(readdirSync(at('src/faces')).filter((name) => !shipped.includes(name))).toEqual(['widgets']);
    expect(readdirSync(at('test/widgets')).sort()).toEqual(['get.test.ts', 'list.test.ts']);
  });
});
