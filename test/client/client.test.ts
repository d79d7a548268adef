/**
 * The generated client against the real server over HTTP: typed calls, typed errors, per-call versions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_VERSION, createClient, DispatchError, type DispatchClient } from '../../generated/client/index.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let client: DispatchClient;
beforeAll(async () => {
  server = await startServer();
  client = createClient({ baseUrl: server.url, apiKey: server.adminKey, entityId: 'client-test' });
});
afterAll(() => server.close());

describe('generated client', () => {
  it('calls an action and returns its typed data', async () => {
    const answer = await client.ai.generate({ model: 'gpt-4o-mini', prompt: 'Say hello', maxTokens: 5 });
    expect(answer.model).toBe('gpt-4o-mini');
    expect(answer.tokens.output).toBeLessThanOrEqual(5);
    expect(answer.text.split(' ').length).toBeGreaterThan(0);
  });

  it('runs a signup / login / session flow', async () => {
    const { user } = await client.auth.signup({ email: 'grace@example.com', password: 'hopper-1906' });
    const { token } = await client.auth.login({ email: 'grace@example.com', password: 'hopper-1906' });
    const session = await client.auth.session({ token });
    expect(session.user.id).toBe(user.id);
  });

  it('throws a DispatchError with type, code, status, param and request id', async () => {
    const error = await client.auth.login({ email: 'grace@example.com', password: 'wrong password' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DispatchError);
    expect(error).toMatchObject({ status: 401, type: 'authentication_error', code: 'invalid_credentials' });
    expect((error as DispatchError).requestId).toMatch(/^req_/);
    const invalid = await client.keys.get({ id: 'not-a-key-id' }).catch((e: unknown) => e);
    expect(invalid).toMatchObject({ status: 400, code: 'payload_invalid', param: '/payload/id' });
  });

  it('collects a list of several pages into one array, up to a limit', async () => {
    const pages = createClient({ baseUrl: server.url, apiKey: server.adminKey, entityId: 'client-pages' });
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await pages.payments.createCustomer({ name: `Customer ${i}` }));
    const all = await pages.payments.listCustomers({ limit: 2 }).toArray();
    expect(all.map((c) => c.id).sort()).toEqual(made.map((c) => c.id).sort());
    const some = await pages.payments.listCustomers({ limit: 2 }).toArray({ limit: 3 });
    expect(some).toEqual(all.slice(0, 3));
  });

  it('sends its generated version, and a per-call version when asked', async () => {
    const latest = await client.callWithMeta('ai', 'generate', { model: 'm', prompt: 'p' });
    expect(latest.headers.get('x-api-version')).toBe(API_VERSION);
    const older = await client.callWithMeta('ai', 'generate', { model: 'm', prompt: 'p', temperature: 0.3 }, { apiVersion: '2026-01-01' });
    expect(older.headers.get('x-api-version')).toBe('2026-01-01');
    expect(older.headers.get('deprecation')).not.toBeNull();
  });
});
