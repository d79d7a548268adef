/**
 * The OpenAPI document as a consumer's code generator reads it: openapi-typescript turns
 * `generated/openapi.json` into types, and a program written against them type-checks, its `authLogin`
 * request and response being the login payload and result, not a union of every action's; a streaming
 * action's JSON answer is its result alone and its stream text; `POST /do` takes the envelope by name.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../../src/package-root.js';
import { typeProblems } from '../helpers/type-check.js';

const dir = mkdtempSync(join(tmpdir(), 'dispatch-openapi-consumer-'));
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

describe('an openapi-typescript consumer', () => {
  it('gets one request and one response type per action, and type-checks against them', async () => {
    const ast = await openapiTS(new URL(`file://${fromRoot('generated', 'openapi.json')}`));
    writeFileSync(join(dir, 'schema.ts'), astToString(ast));
    writeFileSync(join(dir, 'consumer.ts'), CONSUMER);
    const problems = typeProblems([join(dir, 'consumer.ts')], { skipLibCheck: true });
    expect(problems).toEqual([]);
  }, 60_000);
});
