/**
 * The event log example (docs/webhooks.md § Event log) runs as printed (only the server's address differs)
 * against a real server: a sign-up, then `events.list` of the entity's auth events, which holds the sign-up's event.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { platform } from '../../generated/server/platform.js';
import { versionInForce } from '../../src/spec/version-in-force.js';
import { runPageExample } from '../helpers/doc-examples.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());


it('runs the event log example as printed', async () => {
  const lines = await runPageExample('docs/webhooks.md', server, { heading: 'Event log' });
  const [answer] = lines;
  expect(answer.data.hasMore).toBe(false);
  expect(answer.data.items).toHaveLength(1);
  expect(answer.data.items[0]).toMatchObject({
    id: expect.stringMatching(/^evt_/),
    type: 'auth.signup.succeeded',
    // The sign-up names no version: the one in force today (a version takes effect on its date).
    apiVersion: versionInForce(platform, new Date().toISOString().slice(0, 10)),
    livemode: false,
    entityId: 'demo',
    request: { id: expect.stringMatching(/^req_/), idempotencyKey: null },
    data: { user: { id: expect.stringMatching(/^usr_/), email: 'ada@example.com' } },
  });
});
