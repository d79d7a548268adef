/**
 * The `events` face over real HTTP, on SQLite and on PostgreSQL: an event read from the log is the very body
 * a webhook delivery of it posted; `list` filters by type patterns and a time range and pages newest first
 * by stored time (not by id) with no duplicates or gaps; other entities and the other mode see nothing; bad
 * patterns, ranges and cursors answer at their field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type WebhookEvent } from '../../generated/client/index.js';
import type { EventTable, Mode } from '../../src/store/schema.js';
import { fillEventLog } from '../../src/store/event-log-fill.js';
import { newId } from '../../src/store/secrets.js';
import { startReceiver } from '../helpers/receiver.js';
import { startServer, type TestServer } from '../helpers/server.js';

const TYPES = ['payments.intent.succeeded', 'payments.refund.succeeded', 'billing.invoice.paid', 'keys.key.created'];
/** Stored events, two to a second, over the hour before the tests; their ids' times run backwards. */
const COUNT = 25;
const T0 = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** Newest first by stored time, then by id: the log's order. */
const logOrder = (rows: EventTable[]) =>
  [...rows].sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1)).map((r) => r.id);

describe.each([
  { name: 'SQLite', postgres: false },
  { name: 'PostgreSQL', postgres: true },
])('the events face on $name', ({ postgres }) => {
  let server: TestServer;
  const stored: EventTable[] = [];
  const entity = 'log';
  const inEntity = { 'x-entity-id': entity };

  /** Events as the outbox writes them, at chosen times. */
  const row = (i: number, mode: Mode = 'test', entityId = entity): EventTable => ({
    id: newId('evt', T0 + (COUNT - i) * 1000),
    mode,
    entity_id: entityId,
    type: TYPES[i % TYPES.length]!,
    api_version: '2026-09-01',
    request_id: newId('req'),
    idempotency_key: i % 3 === 0 ? `key-${i}` : null,
    data: JSON.stringify({ n: i }),
    created_at: iso(T0 + Math.floor(i / 2) * 1000),
  });

  const events = (action: string, payload: unknown, headers: Record<string, string> = inEntity) => server.post({ face: 'events', action, payload }, { headers });

  /** Every page of a listing, following `startingAfter`. */
  async function allPages(payload: Record<string, unknown>): Promise<{ ids: string[]; pages: number }> {
    const ids: string[] = [];
    let pages = 0;
    for (let after: string | undefined; ; ) {
      const reply = await events('list', { ...payload, ...(after ? { startingAfter: after } : {}) });
      expect(reply.status).toBe(200);
      pages++;
      ids.push(...reply.body.data.items.map((e: { id: string }) => e.id));
      if (!reply.body.data.hasMore) return { ids, pages };
      after = ids.at(-1);
    }
  }

  beforeAll(async () => {
    server = await startServer({ postgres });
    for (let i = 0; i < COUNT; i++) stored.push(row(i));
    const rows = [...stored, row(0, 'live'), row(1, 'live'), row(2, 'test', 'elsewhere')];
    // On SQLite, half of their places moved into the log's order and the others still waiting for the filler,
    // as after a busy second: every page below reads both. (PostgreSQL's log is the events' own index.)
    const half = Math.floor(rows.length / 2);
    await server.db.insertInto('events').values(rows.slice(0, half)).execute();
    await fillEventLog(server.db);
    await server.db.insertInto('events').values(rows.slice(half)).execute();
  });
  afterAll(() => server?.close());

  it('answers an event exactly as its webhook delivery posted it', async () => {
    const receiver = await startReceiver();
    try {
      const headers = { 'x-entity-id': 'hooked' };
      const endpoint = await server.post({ face: 'webhooks', action: 'create', payload: { url: receiver.url, eventTypes: ['*'] } }, { headers });
      const ping = await server.post({ face: 'webhooks', action: 'test', payload: { id: endpoint.body.data.id } }, { headers: { ...headers, 'x-idempotency-key': 'ping-1' } });
      const eventId: string = ping.body.data.eventId;
      await expect.poll(() => receiver.of(eventId).length, { timeout: 5000 }).toBe(1);
      const delivered = JSON.parse(receiver.of(eventId)[0]!.body);
      expect(delivered.request).toEqual({ id: ping.headers.get('request-id'), idempotencyKey: 'ping-1' });

      const got = await events('get', { id: eventId }, headers);
      expect(got.status).toBe(200);
      expect(got.body.data).toEqual(delivered);
      const listed = await events('list', { types: ['webhooks.endpoint.ping'] }, headers);
      expect(listed.body.data).toEqual({ items: [delivered], hasMore: false });

      // The typed client reads a logged event with the type a receiver reads a delivery with.
      const client = createClient({ baseUrl: server.url, apiKey: server.adminKey, entityId: 'hooked' });
      const event = (await client.events.list({ types: ['webhooks.*'] })).items[0] as WebhookEvent;
      if (event.type !== 'webhooks.endpoint.ping') throw new Error(`unexpected event ${event.type}`);
      expect(event.data.endpointId).toBe(endpoint.body.data.id);
    } finally {
      await receiver.close();
    }
  });

  it('lists newest first by stored time, ties by id, whatever order the ids were made in', async () => {
    const first = await events('list', {});
    expect(first.status).toBe(200);
    expect(first.body.data.items).toHaveLength(20);
    expect(first.body.data.hasMore).toBe(true);
    expect(first.body.data.items.map((e: { id: string }) => e.id)).toEqual(logOrder(stored).slice(0, 20));
    const newest = stored.find((r) => r.id === logOrder(stored)[0])!;
    expect(first.body.data.items[0]).toEqual({
      id: newest.id,
      type: newest.type,
      timestamp: newest.created_at,
      apiVersion: '2026-09-01',
      livemode: false,
      entityId: entity,
      request: { id: newest.request_id, idempotencyKey: newest.idempotency_key },
      data: JSON.parse(newest.data),
    });
  });

  it('pages across the whole log with no duplicates or gaps', async () => {
    const { ids, pages } = await allPages({ limit: 7 });
    expect(pages).toBe(4);
    expect(ids).toEqual(logOrder(stored));
    const exact = await allPages({ limit: 5 });
    expect([exact.pages, exact.ids]).toEqual([5, logOrder(stored)]);
  });

  it('filters by type patterns, as webhook endpoints take them', async () => {
    const of = (keep: (type: string) => boolean) => logOrder(stored.filter((r) => keep(r.type)));
    expect((await allPages({ types: ['payments.*'], limit: 3 })).ids).toEqual(of((t) => t.startsWith('payments.')));
    expect((await allPages({ types: ['keys.key.created', 'billing.*'], limit: 100 })).ids).toEqual(of((t) => t === 'keys.key.created' || t.startsWith('billing.')));
    expect((await allPages({ types: ['payments.refund.succeeded'] })).ids).toEqual(of((t) => t === 'payments.refund.succeeded'));
    expect((await allPages({ types: ['*'], limit: 100 })).ids).toEqual(logOrder(stored));
    expect((await allPages({ types: ['auth.*'] })).ids).toEqual([]);
  });

  it('keeps a time range: from inclusive, to exclusive, offsets read as instants', async () => {
    const within = (from: number, to: number) => logOrder(stored.filter((r) => r.created_at >= iso(from) && r.created_at < iso(to)));
    const range = await allPages({ from: iso(T0 + 3000), to: iso(T0 + 8000), limit: 4 });
    expect(range.ids).toEqual(within(T0 + 3000, T0 + 8000));
    expect(range.ids).toHaveLength(10);
    // The same instants written at +02:00.
    const plusTwo = (ms: number) => iso(ms + 7_200_000).replace('Z', '+02:00');
    expect((await allPages({ from: plusTwo(T0 + 3000), to: plusTwo(T0 + 8000) })).ids).toEqual(range.ids);
    expect((await allPages({ from: iso(T0 + 10_000), types: ['payments.*'] })).ids).toEqual(
      logOrder(stored.filter((r) => r.created_at >= iso(T0 + 10_000) && r.type.startsWith('payments.'))),
    );
    expect((await allPages({ to: iso(T0 + 1000) })).ids).toEqual(within(T0, T0 + 1000));
  });

  it('shows another entity and the other mode nothing', async () => {
    const elsewhere = { 'x-entity-id': 'nobody' };
    expect((await events('list', {}, elsewhere)).body.data).toEqual({ items: [], hasMore: false });
    const got = await events('get', { id: stored[0]!.id }, elsewhere);
    expect([got.status, got.body.error.code, got.body.error.param]).toEqual([404, 'resource_not_found', '/payload/id']);
    const cursor = await events('list', { startingAfter: stored[0]!.id }, elsewhere);
    expect([cursor.status, cursor.body.error.code, cursor.body.error.param]).toEqual([404, 'resource_not_found', '/payload/startingAfter']);

    const live = { ...inEntity, authorization: `Bearer ${(await server.key({ mode: 'live', scopes: ['events:read'] })).secret}` };
    const liveIds = (await events('list', {}, live)).body.data.items.map((e: { id: string; livemode: boolean }) => [e.id, e.livemode]);
    expect(liveIds).toHaveLength(2);
    expect(liveIds.every(([, livemode]: [string, boolean]) => livemode)).toBe(true);
    expect(liveIds.some(([id]: [string]) => stored.some((r) => r.id === id))).toBe(false);
    expect((await events('get', { id: stored[0]!.id }, live)).status).toBe(404);
    // And the test key does not see the live events nor the other entity's.
    const testIds = (await allPages({ limit: 100 })).ids;
    expect(testIds).toEqual(logOrder(stored));
  });

  it('needs events:read', async () => {
    const key = await server.key({ scopes: ['webhooks:read'] });
    const reply = await events('list', {}, { ...inEntity, authorization: `Bearer ${key.secret}` });
    expect([reply.status, reply.body.error.code, reply.body.error.details]).toEqual([403, 'insufficient_scope', { requiredScope: 'events:read' }]);
  });

  it('answers bad patterns, ranges, pages and ids at their field', async () => {
    const refused = async (payload: unknown, action = 'list') => {
      const reply = await events(action, payload);
      return [reply.status, reply.body.error?.code, reply.body.error?.param];
    };
    expect(await refused({ types: ['payments.*', 'nope.*'] })).toEqual([400, 'payload_invalid', '/payload/types/1']);
    expect(await refused({ types: ['keys.key.exploded'] })).toEqual([400, 'payload_invalid', '/payload/types/0']);
    expect(await refused({ types: ['payments.*', 'Payments'] })).toEqual([400, 'payload_invalid', '/payload/types/1']);
    expect(await refused({ types: [] })).toEqual([400, 'payload_invalid', '/payload/types']);
    expect(await refused({ types: 'payments.*' })).toEqual([400, 'payload_invalid', '/payload/types']);
    expect(await refused({ from: 'yesterday' })).toEqual([400, 'payload_invalid', '/payload/from']);
    expect(await refused({ to: '2026-13-01T00:00:00Z' })).toEqual([400, 'payload_invalid', '/payload/to']);
    expect(await refused({ from: iso(T0 + 5000), to: iso(T0 + 5000) })).toEqual([400, 'event_range_invalid', '/payload/from']);
    expect(await refused({ from: iso(T0 + 6000), to: iso(T0 + 5000) })).toEqual([400, 'event_range_invalid', '/payload/from']);
    expect(await refused({ limit: 101 })).toEqual([400, 'payload_invalid', '/payload/limit']);
    expect(await refused({ limit: 0 })).toEqual([400, 'payload_invalid', '/payload/limit']);
    expect(await refused({ startingAfter: 'wh_01' })).toEqual([400, 'payload_invalid', '/payload/startingAfter']);
    expect(await refused({ startingAfter: newId('evt') })).toEqual([404, 'resource_not_found', '/payload/startingAfter']);
    expect(await refused({ id: newId('evt') }, 'get')).toEqual([404, 'resource_not_found', '/payload/id']);
    expect(await refused({ id: 'evt-nope' }, 'get')).toEqual([400, 'payload_invalid', '/payload/id']);
  });
});
