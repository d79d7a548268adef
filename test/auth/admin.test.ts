/**
 * The admin actions of the `auth` face over real HTTP, on SQLite and on PostgreSQL: the `auth:admin` scope;
 * listing newest first with paging and the `email` and `disabled` filters, never with a password hash;
 * disabling (its sessions refused from the next call, its login refused), enabling (it logs in again) and
 * deleting (the user and its sessions gone, its address free again), each with its event; and another entity
 * or mode, which cannot see or touch the user.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/store/secrets.js';
import { startServer, type TestServer } from '../helpers/server.js';

const PASSWORD = 'correct horse battery';

describe.each([
  { name: 'SQLite', postgres: false },
  { name: 'PostgreSQL', postgres: true },
])('the auth admin actions on $name', ({ postgres }) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ postgres });
  });
  afterAll(() => server?.close());

  /** Each test works in an entity of its own, so lists hold only what it made. */
  const freshEntity = () => newId('ent');
  const call = (entity: string, action: string, payload: unknown, headers: Record<string, string> = {}) =>
    server.post({ face: 'auth', action, payload }, { headers: { 'x-entity-id': entity, ...headers } });
  const signup = async (entity: string, email: string) => {
    const reply = await call(entity, 'signup', { email, password: PASSWORD });
    expect(reply.status).toBe(200);
    return reply.body.data.user as { id: string; email: string };
  };
  const login = (entity: string, email: string, password = PASSWORD) => call(entity, 'login', { email, password });
  const eventsOf = async (entity: string, type: string) =>
    (await server.db.selectFrom('events').select('data').where('type', '=', type).where('entity_id', '=', entity).execute()).map((e) => JSON.parse(e.data));

  it('answers 403 insufficient_scope to a key without auth:admin, for every admin action', async () => {
    const entity = freshEntity();
    const user = await signup(entity, 'ada@example.com');
    const { secret } = await server.key({ name: 'no admin', scopes: ['auth:signup', 'auth:session'] });
    const headers = { authorization: `Bearer ${secret}` };
    for (const [action, payload] of [
      ['listUsers', {}],
      ['disableUser', { id: user.id }],
      ['enableUser', { id: user.id }],
      ['deleteUser', { id: user.id }],
    ] as const) {
      const refused = await call(entity, action, payload, headers);
      expect([action, refused.status, refused.body.error.code, refused.body.error.details]).toEqual([action, 403, 'insufficient_scope', { requiredScope: 'auth:admin' }]);
    }
    // Nothing changed, and a key with just auth:admin may.
    expect((await login(entity, 'ada@example.com')).status).toBe(200);
    const admin = await server.key({ name: 'auth admin', scopes: ['auth:admin'] });
    const listed = await call(entity, 'listUsers', {}, { authorization: `Bearer ${admin.secret}` });
    expect([listed.status, listed.body.data.items.map((u: { id: string }) => u.id)]).toEqual([200, [user.id]]);
  });

  it('lists newest first in pages, filters by e-mail and by disabled, and never shows a password hash', async () => {
    const entity = freshEntity();
    const made: string[] = [];
    for (const name of ['a', 'b', 'c', 'd', 'e']) made.push((await signup(entity, `${name}@example.com`)).id);
    const newestFirst = [...made].reverse();

    const seen: string[] = [];
    let startingAfter: string | undefined;
    const pages: boolean[] = [];
    do {
      const page = await call(entity, 'listUsers', { limit: 2, ...(startingAfter ? { startingAfter } : {}) });
      expect(page.status).toBe(200);
      seen.push(...page.body.data.items.map((u: { id: string }) => u.id));
      pages.push(page.body.data.hasMore);
      startingAfter = page.body.data.hasMore ? seen.at(-1) : undefined;
    } while (startingAfter);
    expect(seen).toEqual(newestFirst);
    expect(pages).toEqual([true, true, false]);

    const all = await call(entity, 'listUsers', {});
    expect(all.body.data.hasMore).toBe(false);
    for (const user of all.body.data.items) expect(Object.keys(user).sort()).toEqual(['createdAt', 'email', 'id']);
    expect(JSON.stringify(all.body)).not.toMatch(/scrypt|password/i);

    // The e-mail filter is the whole address, in any case.
    const byEmail = await call(entity, 'listUsers', { email: 'C@Example.com' });
    expect(byEmail.body.data.items.map((u: { email: string }) => u.email)).toEqual(['c@example.com']);
    expect((await call(entity, 'listUsers', { email: 'c@example.co' })).body.data.items).toEqual([]);

    expect((await call(entity, 'disableUser', { id: made[1] })).status).toBe(200);
    expect((await call(entity, 'disableUser', { id: made[3] })).status).toBe(200);
    const disabled = await call(entity, 'listUsers', { disabled: true });
    expect(disabled.body.data.items.map((u: { id: string }) => u.id)).toEqual([made[3], made[1]]);
    for (const user of disabled.body.data.items) expect(user.disabledAt).toEqual(expect.any(String));
    const enabled = await call(entity, 'listUsers', { disabled: false, limit: 2 });
    expect([enabled.body.data.items.map((u: { id: string }) => u.id), enabled.body.data.hasMore]).toEqual([[made[4], made[2]], true]);
    const both = await call(entity, 'listUsers', { disabled: true, email: 'b@example.com' });
    expect(both.body.data.items.map((u: { id: string }) => u.id)).toEqual([made[1]]);

    for (const [payload, param] of [
      [{ limit: 101 }, '/payload/limit'],
      [{ limit: 0 }, '/payload/limit'],
      [{ startingAfter: 'cus_123' }, '/payload/startingAfter'],
      [{ email: 'not an address' }, '/payload/email'],
      [{ disabled: 'yes' }, '/payload/disabled'],
    ] as const) {
      const bad = await call(entity, 'listUsers', payload);
      expect([bad.status, bad.body.error.code, bad.body.error.param]).toEqual([400, 'payload_invalid', param]);
    }
  });

  it('disables a user: its session is refused from the next call, its login is refused, and an event is sent', async () => {
    const entity = freshEntity();
    const user = await signup(entity, 'grace@example.com');
    const opened = await login(entity, 'grace@example.com');
    const token = opened.body.data.token;
    expect((await call(entity, 'session', { token })).body.data.user.id).toBe(user.id);

    const disabled = await call(entity, 'disableUser', { id: user.id });
    expect(disabled.status).toBe(200);
    const disabledAt = disabled.body.data.user.disabledAt;
    expect(disabled.body.data.user).toEqual({ id: user.id, email: 'grace@example.com', createdAt: expect.any(String), disabledAt: expect.any(String) });

    const session = await call(entity, 'session', { token });
    expect([session.status, session.body.error.code, session.body.error.param]).toEqual([401, 'session_invalid', '/payload/token']);
    expect((await call(entity, 'logout', { token })).body.data).toEqual({ loggedOut: false });
    const refused = await login(entity, 'grace@example.com');
    expect([refused.status, refused.body.error.code]).toEqual([401, 'user_disabled']);
    // A wrong password learns nothing about the account.
    const wrong = await login(entity, 'grace@example.com', 'not the password');
    expect([wrong.status, wrong.body.error.code]).toEqual([401, 'invalid_credentials']);

    // Disabling again changes nothing and sends no second event.
    const again = await call(entity, 'disableUser', { id: user.id });
    expect(again.body.data.user.disabledAt).toBe(disabledAt);
    const events = await eventsOf(entity, 'auth.user.disabled');
    expect(events).toEqual([{ user: { id: user.id, email: 'grace@example.com', createdAt: expect.any(String), disabledAt } }]);
  });

  it('refuses a session of a disabled user even when it was opened after the disable', async () => {
    // What a login that read the user just before a disable committed would have written.
    const entity = freshEntity();
    const user = await signup(entity, 'late@example.com');
    const token = (await login(entity, 'late@example.com')).body.data.token;
    await call(entity, 'disableUser', { id: user.id });
    await server.db.updateTable('auth_sessions').set({ ended_at: null }).where('user_id', '=', user.id).execute();
    expect((await call(entity, 'session', { token })).body.error.code).toBe('session_invalid');
  });

  it('enables a disabled user: it logs in again, while its old session stays ended', async () => {
    const entity = freshEntity();
    const user = await signup(entity, 'alan@example.com');
    const oldToken = (await login(entity, 'alan@example.com')).body.data.token;
    await call(entity, 'disableUser', { id: user.id });

    const enabled = await call(entity, 'enableUser', { id: user.id });
    expect(enabled.status).toBe(200);
    expect(enabled.body.data.user).toEqual({ id: user.id, email: 'alan@example.com', createdAt: expect.any(String) });
    const relogged = await login(entity, 'alan@example.com');
    expect(relogged.status).toBe(200);
    expect((await call(entity, 'session', { token: relogged.body.data.token })).body.data.user.id).toBe(user.id);
    expect((await call(entity, 'session', { token: oldToken })).body.error.code).toBe('session_invalid');
    expect((await call(entity, 'listUsers', { disabled: true })).body.data.items).toEqual([]);

    // Enabling an enabled user changes nothing and sends no second event.
    expect((await call(entity, 'enableUser', { id: user.id })).body.data.user.disabledAt).toBeUndefined();
    expect(await eventsOf(entity, 'auth.user.enabled')).toEqual([{ user: enabled.body.data.user }]);
  });

  it('deletes a user with its sessions, and its e-mail address can sign up again', async () => {
    const entity = freshEntity();
    const user = await signup(entity, 'edsger@example.com');
    const token = (await login(entity, 'edsger@example.com')).body.data.token;
    await login(entity, 'edsger@example.com');

    const deleted = await call(entity, 'deleteUser', { id: user.id });
    expect([deleted.status, deleted.body.data]).toEqual([200, { id: user.id, deleted: true }]);
    expect((await call(entity, 'session', { token })).body.error.code).toBe('session_invalid');
    expect(await server.db.selectFrom('auth_sessions').select('id').where('user_id', '=', user.id).execute()).toEqual([]);
    expect(await server.db.selectFrom('auth_users').select('id').where('id', '=', user.id).execute()).toEqual([]);
    expect((await login(entity, 'edsger@example.com')).body.error.code).toBe('invalid_credentials');
    expect((await call(entity, 'listUsers', {})).body.data.items).toEqual([]);
    expect(await eventsOf(entity, 'auth.user.deleted')).toEqual([{ user: { id: user.id, email: 'edsger@example.com', createdAt: expect.any(String) } }]);

    const again = await signup(entity, 'Edsger@example.com');
    expect(again.id).not.toBe(user.id);
    expect((await login(entity, 'edsger@example.com')).status).toBe(200);

    const gone = await call(entity, 'deleteUser', { id: user.id });
    expect([gone.status, gone.body.error.code, gone.body.error.param]).toEqual([404, 'resource_not_found', '/payload/id']);
  });

  it('answers 404 at /payload/id for an unknown user, and 400 for an id that is not a user id', async () => {
    const entity = freshEntity();
    for (const action of ['disableUser', 'enableUser', 'deleteUser']) {
      const unknown = await call(entity, action, { id: newId('usr') });
      expect([action, unknown.status, unknown.body.error.code, unknown.body.error.param]).toEqual([action, 404, 'resource_not_found', '/payload/id']);
      const malformed = await call(entity, action, { id: 'key_123' });
      expect([action, malformed.status, malformed.body.error.code, malformed.body.error.param]).toEqual([action, 400, 'payload_invalid', '/payload/id']);
    }
  });

  it('keeps another entity and the other mode from seeing or touching the user', async () => {
    const entity = freshEntity();
    const other = freshEntity();
    const user = await signup(entity, 'barbara@example.com');
    const token = (await login(entity, 'barbara@example.com')).body.data.token;
    const live = await server.key({ name: 'live admin', mode: 'live', scopes: ['auth:*'] });

    const strangers: Record<string, string>[] = [{ 'x-entity-id': other }, { authorization: `Bearer ${live.secret}` }];
    for (const headers of strangers) {
      const as = (action: string, payload: unknown) => server.post({ face: 'auth', action, payload }, { headers: { 'x-entity-id': entity, ...headers } });
      expect((await as('listUsers', {})).body.data.items).toEqual([]);
      expect((await as('listUsers', { email: 'barbara@example.com' })).body.data.items).toEqual([]);
      for (const action of ['disableUser', 'enableUser', 'deleteUser']) {
        const refused = await as(action, { id: user.id });
        expect([action, refused.status, refused.body.error.code, refused.body.error.param]).toEqual([action, 404, 'resource_not_found', '/payload/id']);
      }
    }
    // The user and its session are as they were.
    expect((await call(entity, 'session', { token })).body.data.user).toEqual({ id: user.id, email: 'barbara@example.com', createdAt: expect.any(String) });
    expect((await call(entity, 'listUsers', {})).body.data.items.map((u: { id: string }) => u.id)).toEqual([user.id]);
  });
});
