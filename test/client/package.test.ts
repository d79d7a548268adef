/**
 * The client as its users get it: `dispatch client build`, then the `npm pack` command it prints (the one the
 * client's documentation page and its README document) run verbatim, the tarball installed into a scratch
 * project with its dependencies, then programs there importing it by name (ES modules and CommonJS) make
 * typed calls to a live server, and a TypeScript program type-checks against the installed declarations.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildClientPackage } from '../../src/client-package/build.js';
import { CLIENT_PACK_COMMAND, CLIENT_PACKAGE_DIR } from '../../src/client-package/pack-command.js';
import { CLIENT_DEPENDENCIES } from '../../src/generate/client-package.js';
import { fromRoot } from '../../src/package-root.js';
import { DISPATCH, runProgram } from '../helpers/process.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { typeProblems } from '../helpers/type-check.js';

const work = mkdtempSync(join(tmpdir(), 'dispatch-client-package-'));
const app = join(work, 'app');
const manifest = JSON.parse(readFileSync(fromRoot('generated', 'client', 'package.json'), 'utf8')) as { name: string; version: string };
let server: TestServer;
/** The command `dispatch client build` told us to pack its output with. */
let hint: string;

async function run(command: string, args: string[], cwd: string, shell = false) {
  const result = await runProgram(command, args, { cwd, timeout: 120_000, shell });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

/** A program of the scratch project, run while this process serves its calls (so not synchronously). */
async function node(file: string): Promise<unknown> {
  const { stdout } = await promisify(execFile)('node', [file], { cwd: app, env: { ...process.env, URL: server.url, KEY: server.adminKey }, timeout: 60_000 });
  return JSON.parse(stdout);
}

beforeAll(async () => {
  // Run where the command is documented to run: the package lands in ./dist/client, the tarball beside it.
  const printed = await run(process.execPath, [DISPATCH, 'client', 'build', '--from', fromRoot('generated', 'client')], work);
  hint = /Pack it with `([^`]+)`/.exec(printed)?.[1] ?? printed;
  await run(hint, [], work, true);
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'scratch-app', private: true, type: 'module' }));
  await run('npm', ['install', join(work, `${manifest.name}-${manifest.version}.tgz`), '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'], app);
  server = await startServer();
}, 180_000);

afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('dispatch client build', () => {
  it('refuses to empty a directory that holds anything but an earlier build, or the sources', async () => {
    const busy = join(work, 'busy');
    mkdirSync(busy);
    writeFileSync(join(busy, 'notes.txt'), 'mine');
    await expect(buildClientPackage(fromRoot('generated', 'client'), busy)).rejects.toThrow(/is not empty and is not an earlier client build/);
    expect(readFileSync(join(busy, 'notes.txt'), 'utf8')).toBe('mine');
    await expect(buildClientPackage(fromRoot('generated', 'client'), fromRoot('generated'))).rejects.toThrow(/holds the client's sources/);
    // An earlier build is replaced.
    await expect(buildClientPackage(fromRoot('generated', 'client'), join(work, CLIENT_PACKAGE_DIR))).resolves.toMatchObject({ files: expect.arrayContaining(['dist/esm/index.js', 'dist/cjs/index.js']) });
  });
});

describe('the packed client', () => {
  it('is packed by the command the CLI prints and docs/client.md and the client README document', async () => {
    expect(hint).toBe(CLIENT_PACK_COMMAND);
    expect(CLIENT_PACK_COMMAND).toBe('npm pack ./dist/client');
    for (const page of [fromRoot('docs', 'client.md'), fromRoot('generated', 'client', 'README.md')]) expect(readFileSync(page, 'utf8')).toContain(CLIENT_PACK_COMMAND);
  });

  it('declares the dependencies this repository installs and tests it with', async () => {
    const root = JSON.parse(readFileSync(fromRoot('package.json'), 'utf8')) as { dependencies: Record<string, string> };
    for (const [name, range] of Object.entries(CLIENT_DEPENDENCIES)) expect(root.dependencies[name], name).toBe(range);
    const installed = JSON.parse(readFileSync(join(app, 'node_modules', manifest.name, 'package.json'), 'utf8')) as { dependencies: object; sideEffects: boolean };
    expect(installed).toMatchObject({ dependencies: CLIENT_DEPENDENCIES, sideEffects: false });
  });

  it('makes typed calls from an ES module, through pages and typed errors', async () => {
    writeFileSync(
      join(app, 'esm.mjs'),
      `import { createClient, AuthenticationError } from '${manifest.name}';
const client = createClient({ baseUrl: process.env.URL, apiKey: process.env.KEY, entityId: 'package-test' });
const text = (await client.ai.generate({ model: 'test-model', prompt: 'Say hello' })).text;
const { requestId } = await client.ai.generate({ model: 'test-model', prompt: 'Again' }).withResponse();
for (const email of ['a@example.com', 'b@example.com', 'c@example.com']) await client.auth.signup({ email, password: 'correct horse' });
const users = [];
for await (const user of client.auth.listUsers({ limit: 2 })) users.push(user.email);
const bad = createClient({ baseUrl: process.env.URL, apiKey: 'sk_test_' + 'x'.repeat(40), entityId: 'package-test', maxRetries: 0 });
const refused = await bad.keys.list().catch((e) => e);
console.log(JSON.stringify({ text: typeof text, requestId, users: users.sort(), refused: refused instanceof AuthenticationError && refused.code }));
`,
    );
    expect(await node('esm.mjs')).toEqual({ text: 'string', requestId: expect.stringMatching(/^req_/), users: ['a@example.com', 'b@example.com', 'c@example.com'], refused: 'api_key_invalid' });
  });

  it('makes a typed call from CommonJS', async () => {
    writeFileSync(
      join(app, 'cjs.cjs'),
      `const { createClient, NotFoundError, API_VERSION } = require('${manifest.name}');
const client = createClient({ baseUrl: process.env.URL, apiKey: process.env.KEY, entityId: 'package-test-cjs' });
client.keys.get({ id: 'key_01JD7N9V3W2K8Q5R6T7Y8Z9A0B' }).catch((e) => console.log(JSON.stringify({ notFound: e instanceof NotFoundError, version: API_VERSION })));
`,
    );
    expect(await node('cjs.cjs')).toEqual({ notFound: true, version: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) });
  });

  it.each([
    ['an ES module', 'consumer.mts'],
    ['CommonJS', 'consumer.cts'],
  ])('type-checks a TypeScript program in %s against the installed declarations', (_kind, file) => {
    writeFileSync(
      join(app, file),
      `import { createClient, webhooks, type AiGenerateResult, type ErrorCode, type WebhookEvent } from '${manifest.name}';
const client = createClient({ baseUrl: 'http://localhost:8787', apiKey: 'sk_test_x', entityId: 'acme' });
export async function main(raw: string, headers: Record<string, string>): Promise<string> {
  const result: AiGenerateResult = await client.ai.generate({ model: 'test-model', prompt: 'Hi' });
  // @ts-expect-error: the result of ai.generate has no such field
  result.noSuchField;
  // @ts-expect-error: ai.generate needs a prompt
  await client.ai.generate({ model: 'test-model' });
  const code: ErrorCode = 'payload_invalid';
  const event: WebhookEvent = webhooks.unwrap(raw, headers, 'whsec_x');
  return result.text + code + event.type;
}
`,
    );
    const problems = typeProblems([join(app, file)], {
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      // A Node program, with Node's types (standardwebhooks' declarations name Buffer).
      typeRoots: [fromRoot('node_modules', '@types')],
      types: ['node'],
    });
    expect(problems).toEqual([]);
  });
});
