/**
 * Successful calls over real HTTP: the envelope and its headers, version resolution from every source,
 * and the `auth` and `keys` faces end to end, partitioned by mode and entity.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scopes } from '../../generated/server/scopes.js';
import { platform } from '../../generated/server/platform.js';
import { versionInForce } from '../../src/spec/version-in-force.js';
import { generateCall, startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });
/** What a call that names no version is served today: a version takes effect on its date (version-dates.test.ts sets the clock). */
const inForce = versionInForce(platform, new Date().toISOString().slice(0, 10));

describe('POST /do', () => {
  it('answers {data, meta} with Request-Id and X-API-Version headers', async () => {
    const reply = await server.post(generateCall({ input: 'I love it.' }));
    expect(reply.status).toBe(200);
    expect(reply.body.data).toMatchObject({ model: 'test-model', tokens: { input: expect.any(Number), output: expect.any(Number) } });
    expect(typeof reply.body.data.text).toBe('string');
    expect(reply.body.meta).toMatchObject({ requestId: expect.stringMatching(/^req_/), version: '0.0.0-test', timing: expect.any(Number) });
    expect(reply.headers.get('request-id')).toBe(reply.body.meta.requestId);
    expect(reply.headers.get('x-api-version')).toBe(inForce);
    expect(reply.headers.get('deprecation')).toBeNull();
  });

  it('gives the same answer to the same request (deterministic test model)', async () => {
    const a = await server.post(generateCall({ prompt: 'Same prompt' }));
    const b = await server.post(generateCall({ prompt: 'Same prompt' }));
    expect(a.body.data).toEqual(b.body.data);
  });
});

describe('POST /do/{face}.{action}', () => {
  const { face: _face, action: _action, ...aliased } = generateCall({ prompt: 'Alias' });

  it('answers as POST /do does, headers and all', async () => {
    const canonical = await server.post(generateCall({ prompt: 'Alias' }));
    const alias = await server.post(aliased, { path: '/do/ai.generate' });
    expect(alias.status).toBe(200);
    expect(alias.body.data).toEqual(canonical.body.data);
    expect(alias.headers.get('x-api-version')).toBe(inForce);
    expect(alias.headers.get('request-id')).toBe(alias.body.meta.requestId);
    expect(alias.headers.get('ratelimit-policy')).toBe(canonical.headers.get('ratelimit-policy'));
  });

  it('is one request to idempotency: a replay through either path answers the first reply, another payload 422', async () => {
    const headers = { 'x-idempotency-key': `alias-${Date.now()}` };
    const first = await server.post(aliased, { path: '/do/ai.generate', headers });
    const again = await server.post(generateCall({ prompt: 'Alias' }), { headers });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data).toEqual(first.body.data);
    const headers2 = { 'x-idempotency-key': `alias-back-${Date.now()}` };
    await server.post(generateCall({ prompt: 'Back' }), { headers: headers2 });
    const back = await server.post({ payload: generateCall({ prompt: 'Back' }).payload }, { path: '/do/ai.generate', headers: headers2 });
    expect(back.headers.get('idempotent-replayed')).toBe('true');
    const other = await server.post({ payload: generateCall({ prompt: 'Other' }).payload }, { path: '/do/ai.generate', headers: headers2 });
    expect([other.status, other.body.error.code]).toEqual([422, 'idempotency_key_reused']);
  });

  it('reads a percent-encoded name as the name itself', async () => {
    const reply = await server.post(aliased, { path: '/do/ai%2Egenerate' });
    expect(reply.status).toBe(200);
  });

  it.each([
    ['a face in the body', { ...aliased, face: 'ai' }, '/do/ai.generate', 400, 'invalid_envelope', '/face'],
    ['a field the envelope lacks', { ...aliased, extra: 1 }, '/do/ai.generate', 400, 'invalid_envelope', '/extra'],
    ['a body that is not an object', [aliased], '/do/ai.generate', 400, 'invalid_envelope', undefined],
    ['an unknown face', aliased, '/do/nope.generate', 404, 'face_not_found', undefined],
    ['an unknown action', aliased, '/do/ai.nope', 404, 'action_not_found', undefined],
    ['a path without an action', aliased, '/do/ai', 404, 'route_not_found', undefined],
    ['a path without a face', aliased, '/do/.generate', 404, 'route_not_found', undefined],
    ['an empty name', aliased, '/do/', 404, 'route_not_found', undefined],
    ['a payload that breaks the schema', { payload: { model: 'test-model' } }, '/do/ai.generate', 400, 'payload_invalid', '/payload/prompt'],
  ])('refuses %s in the contract envelope', async (_name, body, path, status, code, param) => {
    const reply = await server.post(body, { path });
    expect(reply.status).toBe(status);
    expect(reply.body.error.code).toBe(code);
    expect(reply.body.error.param).toBe(param);
    expect(reply.body.meta.requestId).toMatch(/^req_/);
  });
});

describe('an action that answers only as a stream', () => {
  it('is refused with stream_required when the call does not ask for one, alone or in a batch', async () => {
    const call = { face: 'usage', action: 'live', payload: { maxSeconds: 1 } };
    const plain = await server.post(call);
    expect([plain.status, plain.body.error.code, plain.body.error.type]).toEqual([400, 'stream_required', 'invalid_request_error']);
    const batch = await server.post({ face: 'batch', action: 'run', payload: { mode: 'bestEffort', requests: [call] } });
    expect(batch.body.data.results[0]).toMatchObject({ status: 400, error: { code: 'stream_required' } });
  });

  it('checks the scope first: a key without it is refused 403 whether or not it asks for a stream', async () => {
    const call = { face: 'usage', action: 'live', payload: { maxSeconds: 1 } };
    const others = [...scopes.keys()].filter((scope) => scope !== 'usage:live');
    expect(others).toHaveLength(27);
    for (const scope of others) {
      const { secret } = await server.key({ scopes: [scope] });
      const reply = await server.post(call, { headers: bearer(secret) });
      expect([reply.status, reply.body.error.code], scope).toEqual([403, 'insufficient_scope']);
    }
    const { secret } = await server.key({ scopes: ['usage:live'] });
    const unstreamed = await server.post(call, { headers: bearer(secret) });
    expect([unstreamed.status, unstreamed.body.error.code]).toEqual([400, 'stream_required']);
    // A stream asked of an action that does not stream, by a key without its scope.
    const asked = await server.post({ face: 'keys', action: 'list', payload: {}, options: { stream: true } }, { headers: bearer(secret) });
    expect([asked.status, asked.body.error.code]).toEqual([403, 'insufficient_scope']);
  });
});

describe('versions', () => {
  it('serves a version pinned in the path, with deprecation headers and that version\'s schema', async () => {
    const reply = await server.post(generateCall({ temperature: 0.2 }), { path: '/2026-01-01/do' });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-api-version')).toBe('2026-01-01');
    expect(reply.headers.get('deprecation')).toBe(`@${Date.parse('2026-09-01') / 1000}`);
    expect(reply.headers.get('sunset')).toBe('Mon, 01 Mar 2027 00:00:00 GMT');
    expect(reply.headers.get('link')).toBe('</docs/versions.md#2026-01-01>; rel="deprecation"');
    const newer = await server.post(generateCall({ sampling: { temperature: 0.2 } }), { path: '/2026-01-01/do' });
    expect(newer.status).toBe(400);
    expect(newer.body.error.param).toBe('/payload/sampling');
  });

  it.each([
    ['X-API-Version', { headers: { 'x-api-version': '2026-01-01' } }, undefined],
    ['options.version', {}, '2026-01-01'],
    ['the same version twice', { headers: { 'x-api-version': '2026-01-01' }, path: '/2026-01-01/do' }, '2026-01-01'],
  ])('resolves from %s', async (_name, request: { headers?: Record<string, string>; path?: string }, optionVersion) => {
    const body = { ...generateCall(), ...(optionVersion ? { options: { version: optionVersion } } : {}) };
    const reply = await server.post(body, request);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-api-version')).toBe('2026-01-01');
  });

  it("falls back to the key's pinned version, then to the stable version in force", async () => {
    const pinned = await server.key({ apiVersion: '2026-01-01' });
    const reply = await server.post(generateCall(), { headers: bearer(pinned.secret) });
    expect(reply.headers.get('x-api-version')).toBe('2026-01-01');
    const explicit = await server.post(generateCall(), { headers: { ...bearer(pinned.secret), 'x-api-version': '2026-09-01' } });
    expect(explicit.headers.get('x-api-version')).toBe('2026-09-01');
    expect((await server.post(generateCall())).headers.get('x-api-version')).toBe(inForce);
  });
});

describe('auth face', () => {
  const signup = { face: 'auth', action: 'signup', payload: { email: 'Ada@Example.com', password: 'correct horse', name: 'Ada' } };
  const login = (password: string, email = 'ada@example.com') => ({ face: 'auth', action: 'login', payload: { email, password } });

  it('signs up, logs in, reads the session and logs out', async () => {
    const created = await server.post(signup);
    expect(created.status).toBe(200);
    expect(created.body.data.user).toMatchObject({ id: expect.stringMatching(/^usr_/), email: 'ada@example.com', name: 'Ada' });
    expect(JSON.stringify(created.body)).not.toContain('correct horse');

    const session = await server.post(login('correct horse'));
    expect(session.status).toBe(200);
    const token: string = session.body.data.token;
    expect(token).toMatch(/^sess_/);

    const read = await server.post({ face: 'auth', action: 'session', payload: { token } });
    expect(read.body.data.user.id).toBe(created.body.data.user.id);

    const out = await server.post({ face: 'auth', action: 'logout', payload: { token } });
    expect(out.body.data).toEqual({ loggedOut: true });
    const gone = await server.post({ face: 'auth', action: 'session', payload: { token } });
    expect(gone.status).toBe(401);
    expect(gone.body.error.code).toBe('session_invalid');
  });

  it('refuses a second signup with the same address, in any case', async () => {
    const again = await server.post({ ...signup, payload: { ...signup.payload, email: 'ADA@example.com' } });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'email_taken', param: '/payload/email' });
  });

  it('gives the same error for a wrong password and an unknown user', async () => {
    const wrong = await server.post(login('wrong password'));
    const unknown = await server.post(login('correct horse', 'nobody@example.com'));
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body.error.message).toBe(unknown.body.error.message);
    expect(wrong.body.error.code).toBe(unknown.body.error.code);
  });

  it('keeps users apart by entity and by mode', async () => {
    const otherEntity = await server.post(login('correct horse'), { headers: { 'x-entity-id': 'globex' } });
    expect(otherEntity.body.error.code).toBe('invalid_credentials');
    const liveKey = await server.key({ mode: 'live' });
    const liveMode = await server.post(login('correct horse'), { headers: bearer(liveKey.secret) });
    expect(liveMode.body.error.code).toBe('invalid_credentials');
  });
});

describe('keys face', () => {
  it('creates a key with a subset of the scopes; the secret works once shown', async () => {
    const created = await server.post({ face: 'keys', action: 'create', payload: { name: 'reporting', scopes: ['ai:generate'], entities: ['acme'] } });
    expect(created.status).toBe(200);
    const key = created.body.data;
    expect(key).toMatchObject({ mode: 'test', name: 'reporting', scopes: ['ai:generate'], entities: ['acme'], tier: 'enterprise' });
    expect(key.key).toMatch(/^sk_test_[0-9A-Za-z]{40}$/);
    expect(key.prefix).toBe(key.key.slice(0, 12));
    const used = await server.post(generateCall(), { headers: bearer(key.key) });
    expect(used.status).toBe(200);
    const forbidden = await server.post({ face: 'keys', action: 'list', payload: {} }, { headers: bearer(key.key) });
    expect(forbidden.body.error.code).toBe('insufficient_scope');
    const fetched = await server.post({ face: 'keys', action: 'get', payload: { id: key.id } });
    expect(fetched.body.data.key).toBeUndefined();
  });

  it('refuses to grant more than the caller holds', async () => {
    const limited = await server.key({ scopes: ['keys:write', 'ai:generate'], entities: ['acme'], tier: 'pro' });
    const attempts = [
      [{ scopes: ['auth:signup'], entities: ['acme'] }, '/payload/scopes/0'],
      [{ scopes: ['*'], entities: ['acme'] }, '/payload/scopes/0'],
      [{ scopes: ['ai:generate'], entities: '*' }, '/payload/entities'],
      [{ scopes: ['ai:generate'], entities: ['acme'], tier: 'enterprise' }, '/payload/tier'],
    ] as const;
    for (const [payload, param] of attempts) {
      const reply = await server.post({ face: 'keys', action: 'create', payload }, { headers: bearer(limited.secret) });
      expect(reply.status).toBe(403);
      expect(reply.body.error).toMatchObject({ code: 'scope_not_grantable', param });
    }
    const unknownScope = await server.post({ face: 'keys', action: 'create', payload: { scopes: ['ai:fly'], entities: ['acme'] } });
    expect(unknownScope.body.error).toMatchObject({ code: 'payload_invalid', param: '/payload/scopes/0' });
  });

  it('refuses to rotate or revoke a key stronger than the caller', async () => {
    const weak = await server.key({ scopes: ['keys:write', 'keys:read'], entities: '*', tier: 'free' });
    const strong = await server.key({ scopes: ['*'], entities: '*', tier: 'enterprise' });
    for (const action of ['rotate', 'revoke']) {
      const reply = await server.post({ face: 'keys', action, payload: { id: strong.id } }, { headers: bearer(weak.secret) });
      expect(reply.status).toBe(403);
      expect(reply.body.error.code).toBe('scope_not_grantable');
    }
    expect((await server.post(generateCall(), { headers: bearer(strong.secret) })).status).toBe(200);
  });

  it('never lets a created key outlive the key that created it', async () => {
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const parent = await server.key({ expiresAt });
    const inherit = await server.post({ face: 'keys', action: 'create', payload: { scopes: ['ai:generate'], entities: ['acme'] } }, { headers: bearer(parent.secret) });
    expect(inherit.body.data.expiresAt).toBe(expiresAt);
    const later = new Date(Date.now() + 7_200_000).toISOString();
    const longer = await server.post({ face: 'keys', action: 'create', payload: { scopes: ['ai:generate'], entities: ['acme'], expiresAt: later } }, { headers: bearer(parent.secret) });
    expect(longer.body.error).toMatchObject({ code: 'scope_not_grantable', param: '/payload/expiresAt' });
  });

  it('lists only keys whose entities the caller covers, newest first, in pages', async () => {
    const scoped = await server.key({ scopes: ['keys:read'], entities: ['acme', 'globex'] });
    const mine = await server.key({ entities: ['acme'] });
    const theirs = await server.key({ entities: ['initech'] });
    const page = await server.post({ face: 'keys', action: 'list', payload: { limit: 100 } }, { headers: bearer(scoped.secret) });
    const ids: string[] = page.body.data.items.map((k: { id: string }) => k.id);
    expect(ids).toContain(mine.id);
    expect(ids).toContain(scoped.id);
    expect(ids).not.toContain(theirs.id);
    expect([...ids].sort().reverse()).toEqual(ids);
    const first = await server.post({ face: 'keys', action: 'list', payload: { limit: 1 } });
    expect(first.body.data.hasMore).toBe(true);
    const second = await server.post({ face: 'keys', action: 'list', payload: { limit: 1, startingAfter: first.body.data.items[0].id } });
    expect(second.body.data.items[0].id < first.body.data.items[0].id).toBe(true);
    const hidden = await server.post({ face: 'keys', action: 'get', payload: { id: theirs.id } }, { headers: bearer(scoped.secret) });
    expect(hidden.body.error.code).toBe('resource_not_found');
  });

  it('rotates a key: the new secret works, the old one stops after the grace period', async () => {
    const old = await server.key({ name: 'rotating' });
    const rotated = await server.post({ face: 'keys', action: 'rotate', payload: { id: old.id } });
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.newKey).toMatchObject({ name: 'rotating', key: expect.stringMatching(/^sk_test_/) });
    expect(rotated.body.data.previousKey.id).toBe(old.id);
    const oldUse = await server.post(generateCall(), { headers: bearer(old.secret) });
    expect(oldUse.body.error.code).toBe('api_key_expired');
    const newUse = await server.post(generateCall(), { headers: bearer(rotated.body.data.newKey.key) });
    expect(newUse.status).toBe(200);

    const graceful = await server.key({});
    const withGrace = await server.post({ face: 'keys', action: 'rotate', payload: { id: graceful.id, graceSeconds: 3600 } });
    expect(withGrace.body.data.previousKey.expiresAt > new Date().toISOString()).toBe(true);
    expect((await server.post(generateCall(), { headers: bearer(graceful.secret) })).status).toBe(200);
  });

  it('rotates under the rules of create: the new key never outlives the caller, and an expired key is not rotated', async () => {
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const expiring = await server.key({ expiresAt, scopes: ['keys:write', 'ai:generate'] });
    const forever = await server.key({ scopes: ['ai:generate'], entities: ['acme'] });
    const rotated = await server.post({ face: 'keys', action: 'rotate', payload: { id: forever.id, graceSeconds: 7200 } }, { headers: bearer(expiring.secret) });
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.newKey.expiresAt).toBe(expiresAt);
    const strong = await server.key({ scopes: ['*'] });
    const refused = await server.post({ face: 'keys', action: 'rotate', payload: { id: strong.id } }, { headers: bearer(expiring.secret) });
    expect(refused.body.error).toMatchObject({ code: 'scope_not_grantable' });

    const expired = await server.key({ expiresAt: new Date(Date.now() - 1000).toISOString() });
    const late = await server.post({ face: 'keys', action: 'rotate', payload: { id: expired.id } });
    expect(late.status).toBe(400);
    expect(late.body.error).toMatchObject({ code: 'key_expired', param: '/payload/id' });

    // A grace period does not stretch the life of a key that expires sooner.
    const soon = new Date(Date.now() + 60_000).toISOString();
    const short = await server.key({ expiresAt: soon });
    const graced = await server.post({ face: 'keys', action: 'rotate', payload: { id: short.id, graceSeconds: 3600 } });
    expect(graced.body.data.previousKey.expiresAt).toBe(soon);
  });

  it('takes a revocation into account at once in the same process', async () => {
    const key = await server.key({});
    expect((await server.post(generateCall(), { headers: bearer(key.secret) })).status).toBe(200);
    const revoked = await server.post({ face: 'keys', action: 'revoke', payload: { id: key.id } });
    expect(revoked.body.data.revokedAt).toEqual(expect.any(String));
    expect((await server.post(generateCall(), { headers: bearer(key.secret) })).body.error.code).toBe('api_key_revoked');
    const rotate = await server.post({ face: 'keys', action: 'rotate', payload: { id: key.id } });
    expect(rotate.body.error.code).toBe('key_revoked');
  });
});

describe('other endpoints', () => {
  it('serves health, readiness, the OpenAPI document and the docs', async () => {
    expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ status: 'ok' });
    expect(await (await fetch(`${server.url}/readyz`)).json()).toEqual({ status: 'ready' });
    const openapi = (await (await fetch(`${server.url}/openapi.json`)).json()) as { openapi: string };
    expect(openapi.openapi).toBe('3.1.0');
    const errors = await fetch(`${server.url}/docs/errors.md`);
    expect(errors.headers.get('content-type')).toContain('text/markdown');
    expect(await errors.text()).toContain('api_key_invalid');
    expect((await fetch(`${server.url}/docs/../package.json`)).status).toBe(404);
  });
});
