/**
 * The AI walkthrough (docs/faces/ai.md) runs as printed (only the server's address differs) against a real
 * server with a test key, and prints what the page shows: the test model's vectors and names.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runPageExample } from '../helpers/doc-examples.js';
import { pageBlock } from '../helpers/doc-pages.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

it('runs the AI walkthrough as printed, and prints the answers it shows', async () => {
  const printed = await runPageExample('docs/faces/ai.md', server);
  // The page elides `meta`, which differs on every call.
  const shown = pageBlock('docs/faces/ai.md', undefined, 'json')
    .split('\n')
    .map((line) => JSON.parse(line.replace(',"meta":{…}}', '}')));
  expect(printed).toHaveLength(2);
  expect(printed.map((answer) => answer.data)).toEqual(shown.map((answer) => answer.data));
  expect(printed[0].meta.requestId).toMatch(/^req_/);
});
