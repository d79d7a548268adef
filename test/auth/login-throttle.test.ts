/**
 * The per-address login throttle over real HTTP, on SQLite and PostgreSQL, on a clock the test moves (the auth
 * handlers take it; nothing here waits): after 10 failures within 15 minutes every login of the address is
 * 429 `rate_limit_exceeded` with `Retry-After`, the right password too, until the oldest failure is 15
 * minutes old, and only further failures prolong it; an address without a user is refused alike; other
 * addresses, entities and modes are not; failures arriving together are judged one after another; a failure
 * counts although an atomic batch rolls it back; and rows whose failures are all past the window are swept.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authHandlers } from '../../src/faces/auth/handlers.js';
import type { Catalogue } from '../../src/core/catalogue.js';
import { shippedCatalogue } from '../../src/server/shipped.js';
import { newId } from '../../src/store/secrets.js';
import { withHandlers } from '../helpers/catalogue.js';
import { startServer, type TestServer, type Reply } from '../helpers/server.js';

const PASSWORD = 'correct horse battery';
const MINUTE = 60_000;
const T0 = Date.parse('2030-01-01T00:00:00.000Z');

describe.each([
  { name: 'SQLite', postgres: false },
  { name: 'PostgreSQL', postgres: true },
])('the login throttle on $name', ({ postgres }) => {
  let server: TestServer;
  let now = T0;
  beforeAll(async () => {
    const catalogue = withHandlers(shippedCatalogue(), 'auth', () => authHandlers({ now: () => now }));
    server = await startServer({ postgres, catalogue });
  });
  afterAll(() => server?.close());

  const call = (entity: string, action: string, payload: unknown, headers: Record<string, string> = {}) =>
    server.post({ face: 'auth', action, payload }, { headers: { 'x-entity-id': entity, ...headers } });
  const login = (entity: string, email: string, password: string, headers: Record<string, string> = {}) => call(entity, 'login', { email, password }, headers);
  const outcome = (reply: Reply) => [reply.status, reply.body.error?.code ?? 'ok'];
  /** A fresh entity with one user, and the clock set to T0. */
  const fresh = async (email = 'ada@example.com') => {
    now = T0;
    const entity = newId('ent');
    expect((await call(entity, 'signup', { email, password: PASSWORD })).status).toBe(200);
    return entity;
  };
  const refused = (reply: Reply, retryAfter: number) => {
    expect(reply.status).toBe(429);
    expect(reply.body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded', details: { violatedPolicies: ['login-failures'] } });
    expect(reply.headers.get('retry-after')).toBe(String(retryAfter));
  };

  it('refuses every login of an address after 10 failures in 15 minutes, until the oldest is 15 minutes old', async () => {
    const entity = await fresh();
    // A failure a minute, the first at T0.
    for (let i = 0; i < 10; i++) {
      now = T0 + i * MINUTE;
      expect(outcome(await login(entity, 'ada@example.com', `wrong password ${i}`))).toEqual([401, 'invalid_credentials']);
    }
    // The right password too, and in another case, until T0 + 15 minutes.
    refused(await login(entity, 'ada@example.com', PASSWORD), 6 * 60);
    refused(await login(entity, 'ADA@example.com', 'wrong again'), 6 * 60);
    now = T0 + 15 * MINUTE - 1000;
    refused(await login(entity, 'ada@example.com', PASSWORD), 1);
    now = T0 + 15 * MINUTE;
    expect((await login(entity, 'ada@example.com', PASSWORD)).status).toBe(200);

    // The refusals counted for nothing; one more failure makes 10 within the window again, until the second
    // failure (T0 + 1 minute) is 15 minutes old.
    expect(outcome(await login(entity, 'ada@example.com', 'wrong once more'))).toEqual([401, 'invalid_credentials']);
    refused(await login(entity, 'ada@example.com', PASSWORD), 60);
    now = T0 + 16 * MINUTE;
    expect((await login(entity, 'ada@example.com', PASSWORD)).status).toBe(200);
  });

  it('refuses an address without a user alike, and keeps other addresses, entities and modes apart', async () => {
    const entity = await fresh();
    expect((await call(entity, 'signup', { email: 'grace@example.com', password: PASSWORD })).status).toBe(200);
    for (let i = 0; i < 10; i++) expect(outcome(await login(entity, 'nobody@example.com', PASSWORD))).toEqual([401, 'invalid_credentials']);
    for (let i = 0; i < 10; i++) expect(outcome(await login(entity, 'ada@example.com', 'wrong password'))).toEqual([401, 'invalid_credentials']);
    refused(await login(entity, 'nobody@example.com', PASSWORD), 900);
    refused(await login(entity, 'ada@example.com', PASSWORD), 900);

    expect((await login(entity, 'grace@example.com', PASSWORD)).status).toBe(200);
    const elsewhere = newId('ent');
    expect((await call(elsewhere, 'signup', { email: 'ada@example.com', password: PASSWORD })).status).toBe(200);
    expect((await login(elsewhere, 'ada@example.com', PASSWORD)).status).toBe(200);
    const live = await server.key({ name: 'live', mode: 'live' });
    expect(outcome(await login(entity, 'ada@example.com', PASSWORD, { authorization: `Bearer ${live.secret}` }))).toEqual([401, 'invalid_credentials']);
  });

  it('judges failures that arrive together one after another: 10 answered, the others refused', async () => {
    const entity = await fresh();
    const replies = await Promise.all(Array.from({ length: 25 }, (_, i) => login(entity, 'ada@example.com', `guess ${i}`)));
    const counts = { 401: 0, 429: 0 } as Record<number, number>;
    for (const reply of replies) counts[reply.status] = (counts[reply.status] ?? 0) + 1;
    expect(counts).toEqual({ 401: 10, 429: 15 });
    refused(await login(entity, 'ada@example.com', PASSWORD), 900);
  });

  it('counts a failure that an atomic batch rolls back with the rest of the batch', async () => {
    const entity = await fresh();
    const batch = (i: number) =>
      server.post(
        {
          face: 'batch',
          action: 'run',
          payload: {
            mode: 'atomic',
            requests: [
              { face: 'auth', action: 'signup', payload: { email: `new${i}@example.com`, password: PASSWORD } },
              { face: 'auth', action: 'login', payload: { email: 'ada@example.com', password: `wrong password ${i}` } },
            ],
          },
        },
        { headers: { 'x-entity-id': entity } },
      );
    for (let i = 0; i < 10; i++) expect(outcome(await batch(i))).toEqual([401, 'batch_aborted']);
    // Each failure is recorded once its batch has rolled back, which may finish just after the batch's answer.
    const recorded = async () => {
      const row = await server.db.selectFrom('auth_login_throttle').select('failures').where('entity_id', '=', entity).executeTakeFirst();
      return row ? (JSON.parse(row.failures) as string[]).length : 0;
    };
    for (let tries = 0; tries < 100 && (await recorded()) < 10; tries++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await recorded()).toBe(10);
    refused(await login(entity, 'ada@example.com', PASSWORD), 900);
    // The rest of each batch was rolled back.
    expect((await call(entity, 'listUsers', {})).body.data.items.map((u: { email: string }) => u.email)).toEqual(['ada@example.com']);
  });

  it('sweeps the rows of addresses whose failures are all past the window', async () => {
    const entity = await fresh();
    expect((await login(entity, 'old@example.com', 'wrong')).status).toBe(401);
    const rows = () => server.db.selectFrom('auth_login_throttle').select('email').where('entity_id', '=', entity).execute();
    expect((await rows()).map((r) => r.email)).toEqual(['old@example.com']);
    now = T0 + 16 * MINUTE;
    expect((await login(entity, 'new@example.com', 'wrong')).status).toBe(401);
    expect((await rows()).map((r) => r.email)).toEqual(['new@example.com']);
  });
});
