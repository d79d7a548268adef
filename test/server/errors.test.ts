/**
 * Every error code of the pipeline stages so far, reached over real HTTP against a listening server, each
 * in the contract's envelope with its status, type, param and details.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCall, startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

interface Case {
  name: string;
  body?: unknown;
  raw?: string;
  path?: string;
  headers?: (s: TestServer) => Promise<Record<string, string>> | Record<string, string>;
  status: number;
  type: string;
  code: string;
  param?: string;
  details?: Record<string, unknown>;
}

const keyHeader = async (s: TestServer, input: Parameters<TestServer['key']>[0]) => ({
  authorization: `Bearer ${(await s.key(input)).secret}`,
});

const cases: Case[] = [
  { name: 'invalid JSON', raw: '{"face": "ai",', status: 400, type: 'invalid_request_error', code: 'invalid_json' },
  { name: 'empty body', raw: '', status: 400, type: 'invalid_request_error', code: 'invalid_json' },
  { name: '__proto__ key', raw: '{"face":"ai","action":"generate","payload":{"__proto__":{"admin":true}}}', status: 400, type: 'invalid_request_error', code: 'invalid_json' },
  { name: 'body not an object', body: [1, 2], status: 400, type: 'invalid_request_error', code: 'invalid_envelope' },
  { name: 'unknown envelope field', body: { ...generateCall(), extra: 1 }, status: 400, type: 'invalid_request_error', code: 'invalid_envelope', param: '/extra' },
  { name: 'missing face', body: { action: 'generate', payload: {} }, status: 400, type: 'invalid_request_error', code: 'invalid_envelope', param: '/face' },
  { name: 'payload not an object', body: { face: 'ai', action: 'generate', payload: 'hi' }, status: 400, type: 'invalid_request_error', code: 'invalid_envelope', param: '/payload' },
  { name: 'unknown option', body: { ...generateCall(), options: { timout: 5 } }, status: 400, type: 'invalid_request_error', code: 'invalid_envelope', param: '/options/timout' },
  { name: 'option named like an Object property', body: { ...generateCall(), options: { toString: 1 } }, status: 400, type: 'invalid_request_error', code: 'invalid_envelope', param: '/options/toString' },
  { name: 'timeout out of range', body: { ...generateCall(), options: { timeout: 0 } }, status: 400, type: 'invalid_request_error', code: 'timeout_out_of_range', param: '/options/timeout' },
  { name: 'timeout above the maximum', body: { ...generateCall(), options: { timeout: 120001 } }, status: 400, type: 'invalid_request_error', code: 'timeout_out_of_range' },
  { name: 'idempotency keys that differ', body: { ...generateCall(), options: { idempotencyKey: 'a' } }, headers: () => ({ 'x-idempotency-key': 'b' }), status: 400, type: 'invalid_request_error', code: 'idempotency_key_invalid' },
  { name: 'idempotency key not printable ASCII', body: { ...generateCall(), options: { idempotencyKey: 'é' } }, status: 400, type: 'invalid_request_error', code: 'idempotency_key_invalid', param: '/options/idempotencyKey' },
  { name: 'no Authorization', body: generateCall(), headers: () => ({ authorization: '' }), status: 401, type: 'authentication_error', code: 'api_key_missing' },
  { name: 'malformed key', body: generateCall(), headers: () => ({ authorization: 'Bearer sk_test_short' }), status: 401, type: 'authentication_error', code: 'api_key_invalid' },
  { name: 'unknown key', body: generateCall(), headers: () => ({ authorization: `Bearer sk_live_${'x'.repeat(40)}` }), status: 401, type: 'authentication_error', code: 'api_key_invalid' },
  {
    name: 'revoked key',
    body: generateCall(),
    headers: async (s) => {
      const key = await s.key({});
      await s.post({ face: 'keys', action: 'revoke', payload: { id: key.id } });
      return { authorization: `Bearer ${key.secret}` };
    },
    status: 401,
    type: 'authentication_error',
    code: 'api_key_revoked',
  },
  { name: 'expired key', body: generateCall(), headers: (s) => keyHeader(s, { expiresAt: '2020-01-01T00:00:00Z' }), status: 401, type: 'authentication_error', code: 'api_key_expired' },
  { name: 'no X-Entity-ID', body: generateCall(), headers: () => ({ 'x-entity-id': '' }), status: 403, type: 'permission_error', code: 'entity_missing' },
  { name: 'malformed X-Entity-ID', body: generateCall(), headers: () => ({ 'x-entity-id': 'a b' }), status: 400, type: 'invalid_request_error', code: 'entity_invalid' },
  { name: 'entity the key may not act for', body: generateCall(), headers: (s) => keyHeader(s, { entities: ['other'] }), status: 403, type: 'permission_error', code: 'entity_forbidden' },
  { name: 'malformed version', body: generateCall(), headers: () => ({ 'x-api-version': '2026-9-1' }), status: 400, type: 'invalid_request_error', code: 'api_version_invalid' },
  { name: 'impossible date as version', body: generateCall(), headers: () => ({ 'x-api-version': '2026-02-30' }), status: 400, type: 'invalid_request_error', code: 'api_version_invalid' },
  { name: 'malformed version in the path', body: generateCall(), path: '/v1/do', status: 400, type: 'invalid_request_error', code: 'api_version_invalid' },
  { name: 'unknown version', body: generateCall(), headers: () => ({ 'x-api-version': '2026-02-02' }), status: 400, type: 'invalid_request_error', code: 'api_version_unknown', details: { supported: ['2026-01-01', '2026-09-01', '2027-03-01'] } },
  { name: 'retired version', body: generateCall(), path: '/2025-06-01/do', status: 410, type: 'invalid_request_error', code: 'api_version_retired' },
  { name: 'conflicting versions', body: { ...generateCall(), options: { version: '2026-01-01' } }, headers: () => ({ 'x-api-version': '2026-09-01' }), status: 400, type: 'invalid_request_error', code: 'api_version_conflict' },
  { name: 'unknown face', body: { face: 'nope', action: 'x', payload: {} }, status: 404, type: 'not_found_error', code: 'face_not_found', param: '/face' },
  { name: 'face named like an Object property', body: { face: 'constructor', action: 'x', payload: {} }, status: 404, type: 'not_found_error', code: 'face_not_found' },
  { name: 'unknown action', body: { face: 'ai', action: 'nope', payload: {} }, status: 404, type: 'not_found_error', code: 'action_not_found', param: '/action', details: { available: ['embed', 'generate', 'models'] } },
  { name: 'stream from an action that does not stream', body: { face: 'auth', action: 'session', payload: { token: 'x' }, options: { stream: true } }, status: 400, type: 'invalid_request_error', code: 'stream_not_supported' },
  { name: 'missing scope', body: generateCall(), headers: (s) => keyHeader(s, { scopes: ['auth:*'] }), status: 403, type: 'permission_error', code: 'insufficient_scope', details: { requiredScope: 'ai:generate' } },
  { name: 'payload invalid', body: { face: 'ai', action: 'generate', payload: { model: '', extra: 1 } }, status: 400, type: 'invalid_request_error', code: 'payload_invalid' },
  { name: 'field removed in the resolved version', body: generateCall({ temperature: 0.5 }), status: 400, type: 'invalid_request_error', code: 'payload_invalid', param: '/payload/temperature' },
  { name: 'record not found', body: { face: 'keys', action: 'get', payload: { id: 'key_0000000000NOPE' } }, status: 404, type: 'not_found_error', code: 'resource_not_found', param: '/payload/id' },
  { name: 'live key without a live model provider', body: generateCall(), headers: (s) => keyHeader(s, { mode: 'live' }), status: 503, type: 'provider_error', code: 'provider_unavailable' },
  { name: 'face error: wrong password', body: { face: 'auth', action: 'login', payload: { email: 'nobody@example.com', password: 'whatever1' } }, status: 401, type: 'authentication_error', code: 'invalid_credentials' },
];

describe('error envelope for every code', () => {
  it.each(cases)('$name → $status $code', async (c) => {
    const headers = c.headers ? await c.headers(server) : {};
    const reply = await server.post(c.body, { headers, raw: c.raw, path: c.path });
    expect(reply.status).toBe(c.status);
    expect(reply.body.error).toMatchObject({ type: c.type, code: c.code, docUrl: `/docs/errors#${c.code}` });
    expect(typeof reply.body.error.message).toBe('string');
    if (c.param) expect(reply.body.error.param).toBe(c.param);
    if (c.details) expect(reply.body.error.details).toMatchObject(c.details);
    expect(reply.body.meta.requestId).toMatch(/^req_[0-9A-Z]{26}$/);
    expect(reply.headers.get('request-id')).toBe(reply.body.meta.requestId);
    expect(reply.body.meta.version).toBe('0.0.0-test');
    expect(typeof reply.body.meta.timing).toBe('number');
    expect(JSON.stringify(reply.body)).not.toMatch(/at .*\.ts:\d+/);
  });

  it('lists every violation of a payload, each with its JSON pointer', async () => {
    const reply = await server.post({ face: 'ai', action: 'generate', payload: { model: '', extra: 1 } });
    const params = reply.body.error.details.errors.map((e: { param: string }) => e.param).sort();
    expect(params).toEqual(['/payload/extra', '/payload/model', '/payload/prompt']);
  });

  it('refuses a body over the limit with 413', async () => {
    const reply = await server.post(null, { raw: JSON.stringify({ ...generateCall(), payload: { prompt: 'x'.repeat(1_100_000) } }) });
    expect(reply.status).toBe(413);
    expect(reply.body.error.code).toBe('payload_too_large');
  });

  it('refuses other content types with 415, and accepts a charset parameter', async () => {
    const form = await server.post(null, { raw: 'face=ai', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.status).toBe(415);
    expect(form.body.error.code).toBe('unsupported_media_type');
    const utf8 = await server.post(generateCall(), { headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(utf8.status).toBe(200);
  });

  it('answers an unknown path with route_not_found in the envelope', async () => {
    const response = await fetch(`${server.url}/nope`);
    const body = (await response.json()) as { error: { code: string } };
    expect(response.status).toBe(404);
    expect(body.error.code).toBe('route_not_found');
  });
});
