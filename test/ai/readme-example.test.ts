/**
 * The AI example of the README runs as printed (only the server's address differs) against a real server with
 * a test key, and prints what the README shows: the test model's vectors and names.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readmeBlock, runReadmeExample } from '../helpers/readme.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

it('runs the README AI example as printed, and prints the answers it shows', async () => {
  const printed = await runReadmeExample('AI', server);
  // The README elides `meta`, which differs on every call.
  const shown = readmeBlock('AI', 'json')
    .split('\n')
    .map((line) => JSON.parse(line.replace(',"meta":{…}}', '}')));
  expect(printed).toHaveLength(2);
  expect(printed.map((answer) => answer.data)).toEqual(shown.map((answer) => answer.data));
  expect(printed[0].meta.requestId).toMatch(/^req_/);
});
