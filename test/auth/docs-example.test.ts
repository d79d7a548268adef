/**
 * The end-users walkthrough (docs/faces/auth.md) runs as printed (only the server's address differs) against a
 * real server: a signup and a login, the list filtered by e-mail, a disable that ends the session and refuses the
 * login, an enable that lets it log in again, and a delete that frees the address.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runPageExample } from '../helpers/doc-examples.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());


it('runs the end-users walkthrough as printed', async () => {
  const lines = await runPageExample('docs/faces/auth.md', server);
  const [listed, disabled, session, refused, enabled, relogged, deleted] = lines;
  const id = listed.data.items[0].id;
  expect(listed.data).toEqual({ items: [{ id: expect.stringMatching(/^usr_/), email: 'grace@example.com', createdAt: expect.any(String) }], hasMore: false });
  expect(disabled.data.user).toMatchObject({ id, disabledAt: expect.any(String) });
  expect(session.error.code).toBe('session_invalid');
  expect(refused.error.code).toBe('user_disabled');
  expect(enabled.data.user.disabledAt).toBeUndefined();
  expect(relogged.data.token).toMatch(/^sess_/);
  expect(deleted.data).toEqual({ id, deleted: true });

  // The address is free again.
  const again = await server.post({ face: 'auth', action: 'signup', payload: { email: 'grace@example.com', password: 'correct horse battery' } }, { headers: { 'x-entity-id': 'demo' } });
  expect(again.status).toBe(200);
  expect(again.body.data.user.id).not.toBe(id);
});
