/**
 * The event log example of the README runs as printed (only the server's address differs) against a real
 * server: a sign-up, then `events.list` of the entity's auth events, which holds the sign-up's event.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runReadmeExample } from '../helpers/readme.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());


it('runs the README event log example as printed', async () => {
  const lines = await runReadmeExample('Event log', server);
  const [answer] = lines;
  expect(answer.data.hasMore).toBe(false);
  expect(answer.data.items).toHaveLength(1);
  expect(answer.data.items[0]).toMatchObject({
    id: expect.stringMatching(/^evt_/),
    type: 'auth.signup.succeeded',
    apiVersion: '2026-09-01',
    livemode: false,
    entityId: 'demo',
    request: { id: expect.stringMatching(/^req_/), idempotencyKey: null },
    data: { user: { id: expect.stringMatching(/^usr_/), email: 'ada@example.com' } },
  });
});
