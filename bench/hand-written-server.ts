/**
 * What a team would write by hand instead of the runtime, for the HTTP section to measure ours against: one
 * Fastify route serving `ai.generate` (not streamed) on the test model, with the duties the real server has on
 * that call, done the way Fastify's ecosystem does them:
 * - the body checked by a JSON schema (the envelope, and ai.generate's payload as faces/ai.yaml gives it in
 *   the current version), compiled by Fastify's Ajv;
 * - bearer keys looked up by their SHA-256 in SQLite through a prepared statement, behind an `lru-cache`
 *   (10,000 entries, 60 s) that also keeps unknown keys, so a flood of one bad key does not reach SQLite;
 * - X-Entity-ID required and checked against the key's entities, and the key's scope;
 * - `@fastify/rate-limit` (in memory) per key and per entity, at the limits of the real server's bench keys
 *   (the enterprise tier of faces/platform.yaml), so that neither server refuses during the bench;
 * - the answer `{data, meta}` with the fields and headers the real server sends, errors in the same envelope;
 * - per call, its usage record, its `ai.generate.completed` event and, with an idempotency key, the stored
 *   answer, written in one synchronous SQLite transaction (WAL, synchronous=NORMAL, prepared statements);
 *   a key used again replays that answer, or is 422 for another request.
 * It makes its own SQLite file in a temp directory with BENCH_KEYS keys, each for entity `bench<i>`, and
 * tells the parent their secrets, as real-server.ts does.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import rateLimit from '@fastify/rate-limit';
import Database from 'better-sqlite3';
import Fastify, { type FastifyError, type FastifyReply, type FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { callCostNanos, nanosToDecimal } from '../src/faces/usage/cost.js';
import { testTextModel } from '../src/providers/test-model.js';
import { newId, randomBase62 } from '../src/store/secrets.js';
import { BENCH_KEYS } from './keys.js';

const API_VERSION = '2026-09-01';
const SERVER_VERSION = 'bench';
// The enterprise tier, which the real server's bench keys have: per key and per entity, a minute's window.
const TOKEN_LIMIT = 6000;
const ENTITY_LIMIT = 12000;
const WINDOW_MS = 60_000;
const RATE_POLICY = `"token";q=${TOKEN_LIMIT};w=60, "entity";q=${ENTITY_LIMIT};w=60`;
const PRICE = { perCall: '0.0005', perUnit: { inputTokens: '0.0000005', outputTokens: '0.000002' } };
const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
const DEFAULT_TIMEOUT_MS = 30_000;

const dir = mkdtempSync(join(tmpdir(), 'dispatch-hand-'));
const db = new Database(join(dir, 'hand.sqlite'));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec(`
  create table api_keys (id text primary key, mode text not null, hash text not null unique, scopes text not null,
    entities text not null, created_at text not null, expires_at text, revoked_at text);
  create table usage_records (id text not null, request_id text not null, at text not null, key_id text not null,
    mode text not null, entity_id text not null, face text not null, action text not null, api_version text,
    status integer not null, error_code text, latency_ms real not null, units text not null, cost text not null,
    currency text not null, replayed integer not null);
  create index usage_records_partition on usage_records (mode, entity_id, id);
  create table events (id text primary key, mode text not null, entity_id text not null, type text not null,
    api_version text not null, request_id text not null, idempotency_key text, data text not null, created_at text not null);
  create index events_partition on events (mode, entity_id, id);
  create table idempotency_records (scope text not null, key text not null, fingerprint text not null,
    status integer not null, body text not null, headers text not null, created_at text not null,
    expires_at text not null, primary key (scope, key));
`);

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const insertKey = db.prepare('insert into api_keys (id, mode, hash, scopes, entities, created_at) values (?, ?, ?, ?, ?, ?)');
const keys: string[] = [];
db.transaction(() => {
  for (let i = 0; i < BENCH_KEYS; i++) {
    const secret = `sk_test_${randomBase62(40)}`;
    keys.push(secret);
    insertKey.run(newId('key'), 'test', sha256(secret), '["*"]', JSON.stringify([`bench${i}`]), new Date().toISOString());
  }
})();

interface KeyRow {
  id: string;
  mode: string;
  scopes: string;
  entities: string;
  expires_at: string | null;
  revoked_at: string | null;
}
const selectKey = db.prepare<[string], KeyRow>(
  'select id, mode, scopes, entities, expires_at, revoked_at from api_keys where hash = ?',
);
const insertUsage = db.prepare(
  `insert into usage_records (id, request_id, at, key_id, mode, entity_id, face, action, api_version, status, error_code,
    latency_ms, units, cost, currency, replayed) values (?, ?, ?, ?, ?, ?, 'ai', 'generate', ?, ?, ?, ?, ?, ?, 'usd', ?)`,
);
const insertEvent = db.prepare(
  `insert into events (id, mode, entity_id, type, api_version, request_id, idempotency_key, data, created_at)
    values (?, ?, ?, 'ai.generate.completed', ?, ?, ?, ?, ?)`,
);
const selectStored = db.prepare<[string, string], { fingerprint: string; status: number; body: string; headers: string }>(
  'select fingerprint, status, body, headers from idempotency_records where scope = ? and key = ?',
);
const insertStored = db.prepare(
  `insert into idempotency_records (scope, key, fingerprint, status, body, headers, created_at, expires_at)
    values (?, ?, ?, ?, ?, ?, ?, ?)`,
);

interface Caller {
  keyId: string;
  mode: string;
  scopes: Set<string>;
  entities: Set<string> | '*';
  expiresAt: number | null;
  revoked: boolean;
}

/** A request as admit() leaves it: when it came, its key's record, and the entity it acts for once checked. */
type Admitted = FastifyRequest & { started: number; caller: Caller | null; entity: string | null };

// An unknown key is kept as `false`, so that repeating it costs a cache hit, not a query.
const keyCache = new LRUCache<string, Caller | false>({ max: 10_000, ttl: 60_000 });

function toCaller(row: KeyRow): Caller {
  const entities = JSON.parse(row.entities) as string[] | '*';
  return {
    keyId: row.id,
    mode: row.mode,
    scopes: new Set(JSON.parse(row.scopes) as string[]),
    entities: entities === '*' ? '*' : new Set(entities),
    expiresAt: row.expires_at ? Date.parse(row.expires_at) : null,
    revoked: row.revoked_at !== null,
  };
}

function callerFor(secret: string): Caller | false {
  const hash = sha256(secret);
  let caller = keyCache.get(hash);
  if (caller === undefined) {
    const row = selectKey.get(hash);
    caller = row ? toCaller(row) : false;
    keyCache.set(hash, caller);
  }
  return caller;
}

const generatePayload = {
  type: 'object',
  required: ['model', 'prompt'],
  additionalProperties: false,
  properties: {
    model: { type: 'string', minLength: 1, maxLength: 200 },
    prompt: { type: 'string', minLength: 1, maxLength: 200000 },
    input: { type: 'string', maxLength: 200000 },
    maxTokens: { type: 'integer', minimum: 1, maximum: 32000 },
    sampling: {
      type: 'object',
      additionalProperties: false,
      properties: { temperature: { type: 'number', minimum: 0, maximum: 2 }, topP: { type: 'number', exclusiveMinimum: 0, maximum: 1 } },
    },
  },
} as const;

const bodySchema = {
  type: 'object',
  required: ['face', 'action', 'payload'],
  additionalProperties: false,
  properties: {
    face: { const: 'ai' },
    action: { const: 'generate' },
    payload: generatePayload,
    options: {
      type: 'object',
      additionalProperties: false,
      properties: {
        timeout: { type: 'integer', minimum: 1, maximum: 120000 },
        idempotencyKey: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]+$' },
      },
    },
  },
} as const;

interface GenerateBody {
  face: 'ai';
  action: 'generate';
  payload: { model: string; prompt: string; input?: string; maxTokens?: number; sampling?: { temperature?: number; topP?: number } };
  options?: { timeout?: number; idempotencyKey?: string };
}

const app = Fastify({
  logger: false,
  genReqId: () => newId('req'),
  // Fastify's defaults drop unknown fields and coerce types; a typo must be refused, and every violation listed.
  ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false, allErrors: true } },
});
app.decorateRequest('started', 0);
app.decorateRequest('caller', null);
app.decorateRequest('entity', null);
// Every answer's meta.timing counts from here, not-found ones included.
app.addHook('onRequest', (request, _reply, done) => {
  (request as Admitted).started = performance.now();
  done();
});

const elapsed = (request: FastifyRequest) => performance.now() - (request as Admitted).started;
const meta = (request: FastifyRequest) => ({ timing: Math.round(elapsed(request) * 100) / 100, requestId: request.id, version: SERVER_VERSION });

/** Answers an error in the envelope; a call that got past its key is recorded in usage as a refusal. */
function refuse(request: FastifyRequest, reply: FastifyReply, status: number, type: string, code: string, message: string, details?: unknown) {
  const { caller, entity } = request as Admitted;
  const body = JSON.stringify({ error: { type, code, message, ...(details ? { details } : {}), docUrl: `/docs/errors.md#${code}` }, meta: meta(request) });
  if (caller && entity) {
    insertUsage.run(newId('use'), request.id, new Date().toISOString(), caller.keyId, caller.mode, entity, API_VERSION, status, code, elapsed(request), '{}', '0', 0);
  }
  return reply.code(status).header('request-id', request.id).type('application/json; charset=utf-8').send(body);
}

await app.register(rateLimit, { global: false });
const tokenLimit = app.createRateLimit({ max: TOKEN_LIMIT, timeWindow: WINDOW_MS, keyGenerator: (request) => `token:${(request as Admitted).caller!.keyId}` });
const entityLimit = app.createRateLimit({
  max: ENTITY_LIMIT,
  timeWindow: WINDOW_MS,
  keyGenerator: (request) => `entity:${(request as Admitted).caller!.mode}:${(request as Admitted).entity}`,
});
type Bucket = Awaited<ReturnType<typeof tokenLimit>>;
// No allow list is configured, so every call is counted; an allowed one would have no state to show.
const remaining = (bucket: Bucket) => (bucket.isAllowed ? Infinity : bucket.remaining);
const exceeded = (bucket: Bucket) => !bucket.isAllowed && bucket.isExceeded;
const secondsLeft = (bucket: Bucket) => (bucket.isAllowed ? 0 : bucket.ttlInSeconds);

const BEARER = /^Bearer +(sk_(?:live|test)_[0-9A-Za-z]{32,})$/i;
const ENTITY = /^[A-Za-z0-9._:-]{1,64}$/;
const PRINTABLE = /^[\x20-\x7e]+$/;

/** The key, its entity and scope, then both rate limits: before the body is read, so a refusal costs little. */
async function admit(request: FastifyRequest, reply: FastifyReply) {
  const authorization = request.headers.authorization;
  if (!authorization) {
    reply.header('www-authenticate', 'Bearer');
    return refuse(request, reply, 401, 'authentication_error', 'api_key_missing', 'No API key was sent.');
  }
  const secret = BEARER.exec(authorization)?.[1];
  const caller = secret ? callerFor(secret) : false;
  const invalid = (code: string, message: string) => {
    reply.header('www-authenticate', 'Bearer error="invalid_token"');
    return refuse(request, reply, 401, 'authentication_error', code, message);
  };
  if (!caller) return invalid('api_key_invalid', 'The API key is not known.');
  if (caller.revoked) return invalid('api_key_revoked', 'The API key has been revoked.');
  if (caller.expiresAt !== null && caller.expiresAt <= Date.now()) return invalid('api_key_expired', 'The API key has expired.');
  (request as Admitted).caller = caller;

  const entity = request.headers['x-entity-id'];
  if (entity === undefined) return refuse(request, reply, 403, 'permission_error', 'entity_missing', 'X-Entity-ID is required.');
  if (typeof entity !== 'string' || !ENTITY.test(entity)) return refuse(request, reply, 400, 'invalid_request_error', 'entity_invalid', 'X-Entity-ID is malformed.');
  if (caller.entities !== '*' && !caller.entities.has(entity)) {
    return refuse(request, reply, 403, 'permission_error', 'entity_forbidden', 'The API key may not act for this entity.');
  }
  (request as Admitted).entity = entity;
  if (!['*', 'ai:*', 'ai:generate'].some((scope) => caller.scopes.has(scope))) {
    return refuse(request, reply, 403, 'permission_error', 'insufficient_scope', 'The API key lacks the scope ai:generate.', { requiredScope: 'ai:generate' });
  }

  const token = await tokenLimit(request);
  const entityBucket = await entityLimit(request);
  // The header shows the policy closest to its limit, as the real server's does.
  const tokenCloser = remaining(token) / TOKEN_LIMIT <= remaining(entityBucket) / ENTITY_LIMIT;
  const [closestName, closest] = tokenCloser ? ['token', token] : ['entity', entityBucket];
  reply.header('ratelimit-policy', RATE_POLICY).header('ratelimit', `"${closestName}";r=${remaining(closest)};t=${secondsLeft(closest)}`);
  const violated = [exceeded(token) && 'token', exceeded(entityBucket) && 'entity'].filter(Boolean);
  if (violated.length > 0) {
    const after = Math.max(1, exceeded(token) ? secondsLeft(token) : 0, exceeded(entityBucket) ? secondsLeft(entityBucket) : 0);
    reply.header('retry-after', String(after));
    return refuse(request, reply, 429, 'rate_limit_error', 'rate_limit_exceeded', `Rate limit exceeded (${violated.join(', ')}); retry in ${after} s.`, { violatedPolicies: violated });
  }
}

/** The transaction of one answered call: its usage record, its event and, under a key, the stored answer. */
const commit = db.transaction(
  (call: { caller: Caller; entity: string; requestId: string; at: string; latency: number; model: string; tokens: { input: number; output: number }; idempotency?: { key: string; scope: string; fingerprint: string; body: string; headers: string } }) => {
    const { caller, entity, tokens } = call;
    const units = { inputTokens: tokens.input, outputTokens: tokens.output };
    const cost = nanosToDecimal(callCostNanos(PRICE, units, false));
    insertUsage.run(newId('use'), call.requestId, call.at, caller.keyId, caller.mode, entity, API_VERSION, 200, null, call.latency, JSON.stringify(units), cost, 0);
    const data = JSON.stringify({ model: call.model, tokens, streamed: false });
    insertEvent.run(newId('evt'), caller.mode, entity, API_VERSION, call.requestId, call.idempotency?.key ?? null, data, call.at);
    const stored = call.idempotency;
    if (stored) {
      const expires = new Date(Date.parse(call.at) + IDEMPOTENCY_TTL_MS).toISOString();
      insertStored.run(stored.scope, stored.key, stored.fingerprint, 200, stored.body, stored.headers, call.at, expires);
    }
  },
);

app.post<{ Body: GenerateBody }>('/do', { schema: { body: bodySchema }, onRequest: admit }, async (request, reply) => {
  const { caller, entity } = request as Admitted as { caller: Caller; entity: string };
  const { payload, options } = request.body;
  const header = request.headers['x-idempotency-key'];
  if (Array.isArray(header) || (header !== undefined && (header.length > 255 || !PRINTABLE.test(header)))) {
    return refuse(request, reply, 400, 'invalid_request_error', 'idempotency_key_invalid', 'X-Idempotency-Key must be 1 to 255 printable ASCII characters, sent once.');
  }
  if (header !== undefined && options?.idempotencyKey !== undefined && header !== options.idempotencyKey) {
    return refuse(request, reply, 400, 'invalid_request_error', 'idempotency_key_invalid', 'X-Idempotency-Key and options.idempotencyKey differ.');
  }
  const key = header ?? options?.idempotencyKey;
  let idempotency: { key: string; scope: string; fingerprint: string } | undefined;
  if (key !== undefined) {
    idempotency = { key, scope: `${caller.keyId}:${caller.mode}:${entity}`, fingerprint: sha256(`ai.generate\n${API_VERSION}\n${JSON.stringify(payload)}`) };
    const stored = selectStored.get(idempotency.scope, key);
    if (stored) {
      if (stored.fingerprint !== idempotency.fingerprint) {
        return refuse(request, reply, 422, 'idempotency_error', 'idempotency_key_reused', 'The idempotency key was used for another request.');
      }
      return reply.code(stored.status).headers(JSON.parse(stored.headers) as Record<string, string>).header('idempotent-replayed', 'true').send(stored.body);
    }
  }

  const { model, prompt, input, maxTokens, sampling } = payload;
  const signal = AbortSignal.timeout(options?.timeout ?? DEFAULT_TIMEOUT_MS);
  const result = await testTextModel.generate({ model, prompt, input, maxTokens, temperature: sampling?.temperature, topP: sampling?.topP, signal });
  const headers = { 'content-type': 'application/json; charset=utf-8', 'request-id': request.id, 'x-api-version': API_VERSION };
  const body = JSON.stringify({ data: result, meta: meta(request) });
  const at = new Date().toISOString();
  try {
    commit({
      caller,
      entity,
      requestId: request.id,
      at,
      latency: elapsed(request),
      model: result.model,
      tokens: result.tokens,
      ...(idempotency ? { idempotency: { ...idempotency, body, headers: JSON.stringify(headers) } } : {}),
    });
  } catch (error) {
    // Another call with the same key committed first, while this one ran.
    if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
      reply.header('retry-after', '1');
      return refuse(request, reply, 409, 'idempotency_error', 'idempotency_key_in_use', 'A call with this idempotency key is in progress.');
    }
    throw error;
  }
  return reply.headers(headers).send(body);
});

app.setNotFoundHandler((request, reply) => refuse(request, reply, 404, 'not_found_error', 'route_not_found', `No route ${request.method} ${request.url}.`));
app.setErrorHandler((error: FastifyError, request, reply) => {
  if (error.validation) {
    // The body is the envelope, so a path in it is already the contract's param; a missing or extra field is named.
    const named = (v: (typeof error.validation)[number]) => (v.params.missingProperty ?? v.params.additionalProperty) as string | undefined;
    const errors = error.validation.map((v) => ({ param: named(v) ? `${v.instancePath}/${named(v)}` : v.instancePath || '/', message: v.message ?? 'is invalid', keyword: v.keyword }));
    return refuse(request, reply, 400, 'invalid_request_error', 'payload_invalid', 'The request body does not match its schema.', { errors });
  }
  if (error.statusCode === 415) return refuse(request, reply, 415, 'invalid_request_error', 'unsupported_media_type', 'Send application/json.');
  if (error.statusCode === 413) return refuse(request, reply, 413, 'invalid_request_error', 'payload_too_large', 'The body is too large.');
  if (error.statusCode !== undefined && error.statusCode < 500) return refuse(request, reply, 400, 'invalid_request_error', 'invalid_json', 'The body is not valid JSON.');
  return refuse(request, reply, 500, 'api_error', 'internal_error', `Something went wrong; quote the request id ${request.id}.`);
});

await app.listen({ port: 0, host: '127.0.0.1' });
process.send?.({ port: (app.server.address() as AddressInfo).port, keys });
process.on('SIGTERM', () => process.exit(0));
