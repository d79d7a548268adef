/**
 * The `usage` face over real HTTP, on SQLite and on PostgreSQL: summaries that add up exactly to the
 * records (cost, calls, errors, units, groups), record paging, ingested meters (accepted, duplicate,
 * invalid, counted once), the live stream, and partitioning: no action ever shows another mode's or
 * another entity's usage, and naming an entity the key may not act for is refused.
 */
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform } from '../../generated/server/platform.js';
import { versionInForce } from '../../src/spec/version-in-force.js';
import { DECIMAL_SUMS_SINCE } from '../../src/faces/usage/versions.js';
import { generateCall, startServer, type TestServer } from '../helpers/server.js';
import { postStream } from '../helpers/sse.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The version a call that names none is served today (a version takes effect on its date; version-dates.test.ts sets the clock). */
const inForce = versionInForce(platform, new Date().toISOString().slice(0, 10));
/** An exact sum as that version writes it: a decimal string since 2027-03-01, a number before. */
const asServed = (exact: string) => (inForce >= DECIMAL_SUMS_SINCE ? exact : Number(exact));

describe.each([
  { name: 'SQLite', postgres: false },
  { name: 'PostgreSQL', postgres: true },
])('the usage face on $name', ({ postgres }) => {
  let server: TestServer;
  /** Test mode, entities acme and beta only. */
  let reader: string;
  let liveKey: string;
  beforeAll(async () => {
    server = await startServer({ postgres, usageFlushMs: 30 });
    reader = (await server.key({ scopes: ['usage:read', 'usage:live', 'ai:generate', 'billing:write'], entities: ['acme', 'beta'] })).secret;
    liveKey = (await server.key({ mode: 'live', scopes: ['*'] })).secret;
  });
  afterAll(() => server?.close());

  const as = (key: string, entity = 'acme') => ({ headers: { authorization: `Bearer ${key}`, 'x-entity-id': entity } });
  const usage = (action: string, payload: unknown, key = reader, entity = 'acme') => server.post({ face: 'usage', action, payload }, as(key, entity));
  const recordsOf = async (entity: string) => {
    const all = [];
    let startingAfter: string | undefined;
    for (;;) {
      const page = await usage('events', { limit: 3, filter: { entity: [entity] }, ...(startingAfter ? { startingAfter } : {}) });
      expect(page.status).toBe(200);
      all.push(...page.body.data.items);
      if (!page.body.data.hasMore) return all;
      startingAfter = page.body.data.items.at(-1).id;
    }
  };

  it('adds up calls, errors, units and cost exactly as the records, grouped and filtered', async () => {
    const calls = [
      server.post(generateCall({ prompt: 'one two' }), as(reader, 'beta')),
      server.post(generateCall({ prompt: 'three' }), as(reader, 'beta')),
      server.post(generateCall({ prompt: '' }), as(reader, 'beta')),
      server.post({ face: 'ai', action: 'nope', payload: {} }, as(reader, 'beta')),
    ];
    expect((await Promise.all(calls)).map((r) => r.status)).toEqual([200, 200, 400, 404]);
    await expect.poll(async () => (await recordsOf('beta')).length, { timeout: 3000 }).toBe(4);
    const records = await recordsOf('beta');
    // Newest first, and paging saw each record once.
    expect(new Set(records.map((r) => r.id)).size).toBe(4);
    expect(records.map((r) => r.id)).toEqual([...records.map((r) => r.id)].sort().reverse());

    const summary = await usage('summary', { groupBy: ['face', 'status'], filter: { entity: ['beta'] } });
    expect(summary.status).toBe(200);
    const { groups, totals, currency } = summary.body.data;
    expect(currency).toBe('usd');
    expect(totals.calls).toBe(4);
    expect(totals.errors).toBe(2);
    const cost = records.reduce((sum, r) => sum.plus(r.cost), new Decimal(0));
    expect(cost.isPositive()).toBe(true);
    expect(totals.cost).toBe(cost.toFixed());
    // Named no version: served the one in force today.
    expect(summary.headers.get('x-api-version')).toBe(inForce);
    expect(totals.units.outputTokens).toEqual(asServed(String(records.reduce((n, r) => n + (r.units.outputTokens ?? 0), 0))));
    expect(groups.map((g: any) => [g.face, g.status, g.calls])).toEqual([
      ['ai', 200, 2],
      ['ai', 400, 1],
      ['ai', 404, 1],
    ]);
    expect(typeof totals.latencyMs.p50).toBe('number');

    // Filters narrow; time buckets name their start.
    const errors = await usage('summary', { filter: { entity: ['beta'], status: [400, 404] } });
    expect(errors.body.data.totals.calls).toBe(2);
    expect(errors.body.data.totals.cost).toBe('0');
    const byMinute = await usage('summary', { groupBy: ['minute'], filter: { entity: ['beta'] } });
    expect(byMinute.body.data.groups.reduce((n: number, g: any) => n + g.calls, 0)).toBe(4);
    for (const g of byMinute.body.data.groups) expect(g.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:00\.000Z$/);
    const byDay = await usage('summary', { groupBy: ['day'], filter: { entity: ['beta'] } });
    expect(byDay.body.data.groups[0].time).toMatch(/T00:00:00\.000Z$/);
  });

  it('refuses bad ranges and more than one time bucket', async () => {
    const backwards = await usage('summary', { from: '2026-01-02T00:00:00Z', to: '2026-01-01T00:00:00Z' });
    expect([backwards.status, backwards.body.error.code]).toEqual([400, 'usage_range_invalid']);
    const twoBuckets = await usage('summary', { groupBy: ['minute', 'day'] });
    expect([twoBuckets.status, twoBuckets.body.error.code]).toEqual([400, 'payload_invalid']);
    const empty = await usage('summary', { from: '2020-01-01T00:00:00Z', to: '2020-01-02T00:00:00Z' });
    expect(empty.body.data.groups).toEqual([]);
    expect(empty.body.data.totals).toMatchObject({ calls: 0, cost: '0', latencyMs: { p50: null, p99: null } });
  });

  it('ingests metered events once each, answers each, and counts them under meters', async () => {
    const now = Date.now();
    const events = [
      { id: 'm-1', type: 'seats', value: 3 },
      { id: 'm-2', type: 'seats', value: 2, subject: 'customer-1', properties: { plan: 'pro' } },
      { id: 'm-1', type: 'seats', value: 100 },
      { id: 'm-3', type: 'gb', value: 1.5, time: new Date(now - 60_000).toISOString() },
      { id: 'm-4', type: 'gb', value: 1, time: new Date(now - 36 * 86_400_000).toISOString() },
      { id: 'm-5', type: 'gb', value: 1, time: new Date(now + 10 * 60_000).toISOString() },
    ];
    const first = await usage('ingest', { events });
    expect(first.status).toBe(200);
    expect(first.body.data.results.map((r: any) => r.status)).toEqual(['accepted', 'accepted', 'duplicate', 'accepted', 'invalid', 'invalid']);
    expect(first.body.data).toMatchObject({ accepted: 3, duplicates: 1, invalid: 2 });
    const again = await usage('ingest', { events: [{ id: 'm-2', type: 'seats', value: 9 }, { id: 'm-6', type: 'seats', value: 1 }] });
    expect(again.body.data.results.map((r: any) => r.status)).toEqual(['duplicate', 'accepted']);
    // Another entity's ids are its own.
    const beta = await usage('ingest', { events: [{ id: 'm-1', type: 'seats', value: 7 }] }, reader, 'beta');
    expect(beta.body.data.accepted).toBe(1);

    const summary = await usage('summary', { from: new Date(now - 3_600_000).toISOString() });
    expect(summary.body.data.meters).toEqual([
      { type: 'gb', events: 1, value: asServed('1.5') },
      { type: 'seats', events: 3, value: asServed('6') },
    ]);
    const both = await usage('summary', { from: new Date(now - 3_600_000).toISOString(), groupBy: ['entity'], filter: { entity: '*' } });
    expect(both.body.data.meters).toContainEqual({ type: 'seats', entity: 'beta', events: 1, value: asServed('7') });

    const tooMany = await usage('ingest', { events: Array.from({ length: 1001 }, (_, i) => ({ id: `x${i}`, type: 'seats', value: 1 })) });
    expect([tooMany.status, tooMany.body.error.code]).toEqual([400, 'payload_invalid']);
  });

  it('adds up meter values and units exactly, as decimal strings since 2027-03-01 and as numbers before', async () => {
    const entity = 'exact';
    const big = Array.from({ length: 11 }, (_, i) => ({ id: `big-${i}`, type: 'big', value: 999_999_999_999_999 }));
    // 0.1 and 0.2 are read as the decimals sent, not as the floats nearest them; past 9 places, half-even.
    const small = [{ id: 'f-1', type: 'fractions', value: 0.1 }, { id: 'f-2', type: 'fractions', value: 0.2 }, { id: 'f-3', type: 'tiny', value: 0.0000000025 }];
    expect((await usage('ingest', { events: [...big, ...small] }, server.adminKey, entity)).body.data.accepted).toBe(14);
    const from = new Date(Date.now() - 3_600_000).toISOString();
    const summary = async (version: string) => {
      // Only the ingest call: the summaries are recorded too.
      const reply = await server.post({ face: 'usage', action: 'summary', payload: { from, filter: { action: ['ingest'] } }, options: { version } }, as(server.adminKey, entity));
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      return reply.body.data;
    };
    // The ingest call's own record (meterEvents: 14) is written within a flush.
    await expect.poll(async () => (await summary('2027-03-01')).totals.calls).toBe(1);

    const exact = await summary('2027-03-01');
    expect(exact.meters).toEqual([
      { type: 'big', events: 11, value: '10999999999999989' },
      { type: 'fractions', events: 2, value: '0.3' },
      { type: 'tiny', events: 1, value: '0.000000002' },
    ]);
    expect(exact.totals.units).toEqual({ meterEvents: '14' });
    expect(exact.groups[0].units).toEqual({ meterEvents: '14' });

    // An older version keeps numbers: the nearest to each exact sum (a JSON number cannot hold …989).
    const older = await summary('2026-09-01');
    expect(older.meters.map((m: any) => m.value)).toEqual([10999999999999988, 0.3, 0.000000002]);
    expect(older.totals.units).toEqual({ meterEvents: 14 });
    expect(older.groups[0].units).toEqual({ meterEvents: 14 });
  });

  it('follows records as they are written, within the scope and filter', async () => {
    const seen: any[] = [];
    let opened!: () => void;
    const started = new Promise<void>((r) => (opened = r));
    const stream = postStream(
      server.url,
      { face: 'usage', action: 'live', payload: { maxSeconds: 2, filter: { face: ['ai'] } }, options: { stream: true } },
      { authorization: `Bearer ${reader}`, 'x-entity-id': 'acme' },
      (event) => {
        if (event.event === 'start') opened();
        if (event.event === 'record') seen.push(event.data);
      },
    );
    await started;
    await server.post(generateCall({ prompt: 'live one' }), as(reader, 'acme'));
    // Not followed: another entity, another face, another mode.
    await server.post(generateCall({ prompt: 'other entity' }), as(reader, 'beta'));
    await usage('summary', {});
    await server.post(generateCall({ prompt: 'live mode' }), as(liveKey, 'acme'));
    const reply = await stream;
    expect(reply.status).toBe(200);
    const last = reply.events.at(-1)!;
    expect(last.event).toBe('result');
    expect(last.data.data).toEqual({ delivered: seen.length, dropped: 0 });
    expect(seen.map((r) => [r.mode, r.entityId, r.face, r.action, r.status])).toEqual([['test', 'acme', 'ai', 'generate', 200]]);
    expect(seen[0]).toMatchObject({ currency: 'usd', replayed: false });
    expect(seen[0].id).toMatch(/^use_/);
  });

  it('answers live only as a stream', async () => {
    const plain = await usage('live', {});
    expect([plain.status, plain.body.error.code]).toEqual([400, 'stream_required']);
  });

  it('never shows another mode or an entity the key may not act for', async () => {
    await server.post(generateCall({ prompt: 'secret' }), as(server.adminKey, 'gamma'));
    await server.post(generateCall({ prompt: 'live' }), as(liveKey, 'acme'));
    await sleep(200);
    for (const action of ['summary', 'events']) {
      const forbidden = await usage(action, { filter: { entity: ['gamma'] } });
      expect([action, forbidden.status, forbidden.body.error.code, forbidden.body.error.param]).toEqual([action, 403, 'entity_forbidden', '/payload/filter/entity/0']);
    }
    // The stream is open when the handler refuses: the refusal is its terminal event.
    const live = await postStream(
      server.url,
      { face: 'usage', action: 'live', payload: { filter: { entity: ['gamma'] } }, options: { stream: true } },
      { authorization: `Bearer ${reader}`, 'x-entity-id': 'acme' },
    );
    expect(live.events.map((e) => e.event)).toEqual(['start', 'error']);
    expect(live.events[1]!.data.error).toMatchObject({ code: 'entity_forbidden', param: '/payload/filter/entity/0' });
    // `*` is every entity the key may act for, not every entity.
    const all = await usage('summary', { groupBy: ['entity'], filter: { entity: '*' } });
    expect(all.body.data.groups.map((g: any) => g.entity).sort()).toEqual(['acme', 'beta']);
    const records = await usage('events', { filter: { entity: '*' }, limit: 1000 });
    expect(new Set(records.body.data.items.map((r: any) => `${r.mode}:${r.entityId}`))).toEqual(new Set(['test:acme', 'test:beta']));
    // A live key reads live usage only.
    const liveRecords = await usage('events', { limit: 1000 }, liveKey);
    expect(liveRecords.body.data.items.length).toBeGreaterThan(0);
    expect(liveRecords.body.data.items.every((r: any) => r.mode === 'live')).toBe(true);
    // The test-mode calls of acme (several above) are not in the live key's summary: only its two live calls and its own reads.
    const liveSummary = await usage('summary', { filter: { face: ['ai'] } }, liveKey);
    expect(liveSummary.body.data.totals.calls).toBe(2);
    // Ingested meters of another entity are not counted.
    const meters = await usage('summary', { from: new Date(Date.now() - 3_600_000).toISOString() }, server.adminKey, 'gamma');
    expect(meters.body.data.meters).toEqual([]);
  });
});
