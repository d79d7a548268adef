/**
 * The test `dispatch new` writes beside each new action, `test/<face>/<action>.test.ts`: it calls the action
 * over HTTP on the real server and expects the face file's example result, so it fails (501 not_implemented)
 * until the handler is written, and then keeps the handler and its documented example in agreement.
 */
import { format } from '../generate/format.js';
import type { ActionExample } from './face-stanza.js';

/** Test helpers live in `<tests>/helpers`, and each face's tests in `<tests>/<face>/`. */
export const SERVER_HELPER = '../helpers/server.js';

export interface NewTestFile {
  face: string;
  action: string;
  example: ActionExample;
  /** The face file and handler module, as the header names them. */
  faceFile: string;
  handlerFile: string;
}

export async function newTestFile(input: NewTestFile): Promise<string> {
  const id = `${input.face}.${input.action}`;
  const call = { face: input.face, action: input.action, payload: input.example.payload };
  const text = `/**
 * \`${id}\` over real HTTP: it answers the example of ${input.faceFile}. It fails (501 not_implemented)
 * until ${input.handlerFile} implements the action.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '${SERVER_HELPER}';

describe('${id}', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('answers the example of the face file', async () => {
    const reply = await server.post(${JSON.stringify(call)});
    expect(reply.body.error).toBeUndefined();
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual(${JSON.stringify(input.example.result)});
  });
});
`;
  return format(`${input.action}.test.ts`, text);
}
