/**
 * Secrets at rest (src/store/sealed.ts and its users): sealed values reveal nothing and cannot be altered,
 * keys rotate (previous keys still open, re-sealing moves to the current one), the key file of the embedded
 * mode, and over HTTP a stored idempotent reply that holds a new API key: sealed in the store, replayed as it
 * was answered.
 */
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configureSecretKeys } from '../../src/cli/secret-keys.js';
import { newSecretKey, parseSecretKey, seal, sealedUnderCurrentKey, unseal, useSecretKeys } from '../../src/store/sealed.js';
import { getEndpoint, insertEndpoint, resealEndpointSecrets } from '../../src/faces/webhooks/store.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

describe('sealed values', () => {
  it('seal and open, reveal nothing, and refuse a value that was altered', () => {
    const sealed = seal('whsec_plain secret');
    expect(sealed).toMatch(/^sealed:v1:[0-9a-f]{12}:/);
    expect(sealed).not.toContain('plain');
    expect(unseal(sealed)).toBe('whsec_plain secret');
    expect(seal('whsec_plain secret')).not.toBe(sealed);
    const body = Buffer.from(sealed.slice(sealed.lastIndexOf(':') + 1), 'base64');
    body[body.length - 1]! ^= 1;
    expect(() => unseal(sealed.slice(0, sealed.lastIndexOf(':') + 1) + body.toString('base64'))).toThrow();
    // Values stored before sealing existed read as they are.
    expect(unseal('whsec_legacy')).toBe('whsec_legacy');
  });

  it('never seal under the same IV twice, across refills of the random pool', () => {
    // Base64 of the IV (12 bytes), the tag and the ciphertext: the IV is its first 16 characters.
    const ivs = Array.from({ length: 2000 }, () => seal('same').split(':').at(-1)!.slice(0, 16));
    expect(new Set(ivs).size).toBe(ivs.length);
  });

  it('rotate: previous keys still open, an unknown key is named, re-sealing moves secrets to the current key', async () => {
    const a = parseSecretKey(newSecretKey());
    const b = parseSecretKey(newSecretKey());
    useSecretKeys(a);
    const id = `wh_${Date.now()}`;
    const now = new Date().toISOString();
    await insertEndpoint(server.db, {
      id, mode: 'test', entity_id: 'acme', url: 'https://example.com/h', description: null, event_types: '["*"]', status: 'enabled',
      disabled_reason: null, secret: 'whsec_current', previous_secret: 'whsec_previous', previous_secret_expires_at: now, created_at: now, updated_at: now,
    });
    const stored = await server.db.selectFrom('webhook_endpoints').select(['secret', 'previous_secret']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(stored.secret).not.toContain('whsec_current');
    expect(stored.previous_secret).not.toContain('whsec_previous');

    useSecretKeys(b, [a]);
    expect(sealedUnderCurrentKey(stored.secret)).toBe(false);
    expect(await getEndpoint(server.db, { mode: 'test', entityId: 'acme' }, id)).toMatchObject({ secret: 'whsec_current', previous_secret: 'whsec_previous' });
    expect(await resealEndpointSecrets(server.db)).toBeGreaterThanOrEqual(1);
    const resealed = await server.db.selectFrom('webhook_endpoints').select('secret').where('id', '=', id).executeTakeFirstOrThrow();
    expect(sealedUnderCurrentKey(resealed.secret)).toBe(true);

    useSecretKeys(b);
    expect((await getEndpoint(server.db, { mode: 'test', entityId: 'acme' }, id))?.secret).toBe('whsec_current');
    useSecretKeys(parseSecretKey(newSecretKey()));
    await expect(getEndpoint(server.db, { mode: 'test', entityId: 'acme' }, id)).rejects.toThrow(/DISPATCH_PREVIOUS_SECRET_KEYS/);
    useSecretKeys(b);
  });
});

describe('the secret key of a process', () => {
  it('is made once into the data directory in the embedded mode, readable by its owner only, and required with DATABASE_URL', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dispatch-key-'));
    const config = { dataDir, previousSecretKeys: [] };
    expect(configureSecretKeys(config)).toBe(join(dataDir, 'secret.key'));
    const key = readFileSync(join(dataDir, 'secret.key'), 'utf8');
    expect(statSync(join(dataDir, 'secret.key')).mode & 0o777).toBe(0o600);
    configureSecretKeys(config);
    expect(readFileSync(join(dataDir, 'secret.key'), 'utf8')).toBe(key);
    expect(() => configureSecretKeys({ ...config, databaseUrl: 'postgres://x' })).toThrow(/DISPATCH_SECRET_KEY is required/);
    expect(() => configureSecretKeys({ ...config, secretKey: 'short' })).toThrow(/32 bytes/);
  });
});

describe('stored replies', () => {
  it('keep the API key a call answered sealed, and replay it as it was answered', async () => {
    const call = { face: 'keys', action: 'create', payload: { scopes: ['ai:generate'], entities: ['acme'] } };
    const first = await server.post(call, { headers: { 'x-idempotency-key': 'sealed-key-1' } });
    expect(first.status).toBe(200);
    const secret = first.body.data.key as string;
    const rows = await server.db.selectFrom('idempotency_records').select(['body', 'headers']).where('key', '=', 'sealed-key-1').execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.body).toMatch(/^sealed:v1:/);
    expect(rows[0]!.body).not.toContain(secret);
    const replay = await server.post(call, { headers: { 'x-idempotency-key': 'sealed-key-1' } });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
  });
});
