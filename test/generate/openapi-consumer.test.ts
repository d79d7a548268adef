/**
 * The OpenAPI document as a consumer's code generator reads it: openapi-typescript turns
 * `generated/openapi.json` into types, and a program written against them type-checks, its `authLogin`
 * request and response being the login payload and result, not a union of every action's; a streaming
 * action's JSON answer is its result alone and its stream text; `POST /do` takes the envelope by name.
 * With openapi-fetch, the client docs/calling.md shows (`createClient<EntitySet<paths>, 'application/json'>`: the
 * JSON answers, not the streams, and the entity sent by the client) reads `ai.generate`'s text with no cast,
 * and the same program runs against a real server.
 */
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fromRoot } from '../../src/package-root.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { pageBlock } from '../helpers/doc-pages.js';
import { typeProblems } from '../helpers/type-check.js';

const dir = mkdtempSync(join(tmpdir(), 'dispatch-openapi-consumer-'));
// The consumer's packages are the project's: openapi-fetch, as a user installs it.
symlinkSync(fromRoot('node_modules'), join(dir, 'node_modules'), 'dir');
// An ES module project, as the documented client's top-level await needs.
writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CONSUMER = `import type { operations, paths } from './schema.js';

type Login = operations['authLogin'];
type LoginBody = Login['requestBody']['content']['application/json'];
type LoginResult = Login['responses'][200]['content']['application/json']['data'];

const body: LoginBody = { payload: { email: 'ada@example.com', password: 'correct horse battery' }, options: { timeout: 5000 } };
declare const result: LoginResult;
const token: string = result.token;
const email: string = result.user.email;
// @ts-expect-error: the login result has no such field
result.text;
// @ts-expect-error: the payload of auth.login takes no prompt
const wrong: LoginBody = { payload: { email: 'ada@example.com', password: 'x', prompt: 'hi' } };
// The path form names the same operation.
const same: paths['/do/auth.login']['post'] extends Login ? true : false = true;

// ai.generate answers JSON or a stream: the JSON is the result alone (openapi-fetch with media \`\${string}/json\`
// reads exactly this member), the stream is text.
type Generate = operations['aiGenerate']['responses'][200]['content'];
declare const generated: Generate[keyof Generate & \`\${string}/json\`];
const text: string = generated.data.text;
const stream: Generate['text/event-stream'] = 'id: 0\\nevent: start\\ndata: {}\\n\\n';

type Envelope = operations['do']['requestBody']['content']['application/json'];
const call: Envelope = { face: 'auth', action: 'login', payload: { email: 'ada@example.com', password: 'x' } };
// @ts-expect-error: no face is named so
const unknown: Envelope = { face: 'nope', action: 'login', payload: {} };
export { body, token, email, wrong, same, text, stream, call, unknown };
`;

/** docs/calling.md's openapi-fetch client, as printed, with the test server's address. */
const documentedClient = (url: string) => pageBlock('docs/calling.md', 'Clients generated from the document', 'ts').replaceAll('http://127.0.0.1:8787', url);

// Without the media type, the 200 of an action that can stream is its JSON or its stream's text.
const DEFAULT_MEDIA = `import createClient from 'openapi-fetch';
import type { paths } from './schema.js';

export async function untyped(baseUrl: string) {
  const client = createClient<paths>({ baseUrl });
  const { data } = await client.POST('/do/ai.generate', { params: { header: { 'X-Entity-ID': 'acme' } }, body: { payload: { model: 'gpt-4o-mini', prompt: 'Hi.' } } });
  // @ts-expect-error: data may be the stream's text
  return data?.data.text;
}
`;

/** The problems of `file` of the consumer's directory, type-checked as a strict NodeNext program. */
const typeCheck = (file: string) => typeProblems([join(dir, file)], { skipLibCheck: true });

beforeAll(async () => {
  const ast = await openapiTS(new URL(`file://${fromRoot('generated', 'openapi.json')}`));
  writeFileSync(join(dir, 'schema.ts'), astToString(ast));
}, 60_000);

describe('an openapi-typescript consumer', () => {
  it('gets one request and one response type per action, and type-checks against them', () => {
    writeFileSync(join(dir, 'consumer.ts'), CONSUMER);
    expect(typeCheck('consumer.ts')).toEqual([]);
  }, 60_000);
});

describe('an openapi-fetch consumer', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it("reads ai.generate's JSON result with no cast as the docs show it, and runs against the server", async () => {
    writeFileSync(join(dir, 'documented.ts'), documentedClient(server.url));
    writeFileSync(join(dir, 'default-media.ts'), DEFAULT_MEDIA);
    expect(typeCheck('documented.ts')).toEqual([]);
    expect(typeCheck('default-media.ts')).toEqual([]);
    const printed = vi.spyOn(console, 'log').mockImplementation(() => {});
    vi.stubEnv('DISPATCH_API_KEY', server.adminKey);
    try {
      await import(join(dir, 'documented.ts'));
      expect(printed).toHaveBeenCalledOnce();
      expect(String(printed.mock.calls[0]![0])).toMatch(/^\S/);
    } finally {
      printed.mockRestore();
      vi.unstubAllEnvs();
    }
  }, 60_000);
});
