/**
 * A version takes effect on its date: before it, a call that names no version (and whose key pins none) is
 * served the newest stable version whose date has come, while naming the new version adopts it early; on its
 * date it becomes the default, with no restart. The background workers date their events the same way.
 * The server's clock is set here; 2027-03-01 writes usage.summary's sums as decimal strings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform } from '../../generated/server/platform.js';
import { versionInForce, versionInForceNow } from '../../src/spec/version-in-force.js';
import { generateCall, startServer, type TestServer } from '../helpers/server.js';

const BEFORE = Date.parse('2027-02-28T23:59:59.999Z');
const ON = Date.parse('2027-03-01T00:00:00.000Z');

describe('the version in force', () => {
  const versions = (...list: [date: string, status: 'stable' | 'deprecated' | 'retired'][]) => ({
    latest: list.filter(([, s]) => s === 'stable').at(-1)?.[0] ?? '',
    versions: list.map(([date, status]) => ({ date, status, summary: '' })),
  });

  it('is the newest stable version whose date has come', () => {
    expect(versionInForce(platform, '2027-02-28')).toBe('2026-09-01');
    expect(versionInForce(platform, '2027-03-01')).toBe('2027-03-01');
    expect(versionInForce(platform, '2030-01-01')).toBe('2027-03-01');
  });

  it('falls back to a deprecated version that has come, and before any has come to the first stable one', () => {
    const some = versions(['2025-01-01', 'retired'], ['2026-01-01', 'deprecated'], ['2027-01-01', 'stable'], ['2028-01-01', 'stable']);
    expect(versionInForce(some, '2026-06-01')).toBe('2026-01-01');
    expect(versionInForce(some, '2025-06-01')).toBe('2027-01-01');
    expect(versionInForce(some, '2027-06-01')).toBe('2027-01-01');
  });

  it('follows the clock from one UTC day to the next, either way', () => {
    let clock = BEFORE;
    const now = versionInForceNow(platform, () => clock);
    expect(now()).toBe('2026-09-01');
    clock = ON;
    expect(now()).toBe('2027-03-01');
    clock = BEFORE;
    expect(now()).toBe('2026-09-01');
  });
});

describe('a server whose clock reaches 2027-03-01', () => {
  let server: TestServer;
  let clock = BEFORE;
  let pinnedNew: string;
  let pinnedOld: string;
  const from = new Date(Date.now() - 3_600_000).toISOString();
  beforeAll(async () => {
    server = await startServer({ now: () => clock, email: { pollMs: 50 } });
    pinnedNew = (await server.key({ apiVersion: '2027-03-01' })).secret;
    pinnedOld = (await server.key({ apiVersion: '2026-09-01' })).secret;
    const ingested = await server.post({ face: 'usage', action: 'ingest', payload: { events: [{ id: 'seats-1', type: 'seats', value: 1.5 }] } });
    expect(ingested.body.data.accepted).toBe(1);
  });
  afterAll(() => server?.close());

  /** usage.summary's meters and the version it was served in. */
  const summary = async (request: { version?: string; key?: string } = {}) => {
    const body = { face: 'usage', action: 'summary', payload: { from }, ...(request.version ? { options: { version: request.version } } : {}) };
    const reply = await server.post(body, request.key ? { headers: { authorization: `Bearer ${request.key}` } } : {});
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return { version: reply.headers.get('x-api-version'), meters: reply.body.data.meters };
  };
  const numbers = [{ type: 'seats', events: 1, value: 1.5 }];
  const strings = [{ type: 'seats', events: 1, value: '1.5' }];

  it('before the date, serves a call that names no version in 2026-09-01, and 2027-03-01 to whoever names it', async () => {
    clock = BEFORE;
    expect(await summary()).toEqual({ version: '2026-09-01', meters: numbers });
    expect(await summary({ version: '2027-03-01' })).toEqual({ version: '2027-03-01', meters: strings });
    const path = await server.post({ face: 'usage', action: 'summary', payload: { from } }, { path: '/2027-03-01/do' });
    expect([path.headers.get('x-api-version'), path.body.data.meters]).toEqual(['2027-03-01', strings]);
    expect(await summary({ key: pinnedNew })).toEqual({ version: '2027-03-01', meters: strings });
  });

  it('on the date, without a restart, serves a call that names no version in 2027-03-01; a pinned key keeps its version', async () => {
    clock = ON;
    expect(await summary()).toEqual({ version: '2027-03-01', meters: strings });
    expect(await summary({ key: pinnedOld })).toEqual({ version: '2026-09-01', meters: numbers });
    expect(await summary({ version: '2026-09-01' })).toEqual({ version: '2026-09-01', meters: numbers });
  });

  it('serves the deprecated 2026-01-01 with its Sunset ahead, before and on the new version\'s date alike', async () => {
    for (const at of [BEFORE, ON]) {
      clock = at;
      const reply = await server.post({ ...generateCall(), options: { version: '2026-01-01' } });
      expect(reply.status).toBe(200);
      expect(reply.headers.get('sunset')).toBe('Mon, 01 Mar 2027 00:00:00 GMT');
      expect(reply.headers.get('deprecation')).toBe(`@${Date.parse('2026-09-01') / 1000}`);
    }
  });

  it('dates the events the mail worker writes in the version in force when it writes them', async () => {
    const deliveredIn = async (at: number) => {
      clock = at;
      // Scheduled, so that the worker, not the call, delivers it; the call names the newest version.
      const sent = await server.post({
        face: 'email',
        action: 'send',
        payload: { from: 'hello@acme.test', to: ['ada@example.com'], subject: 'later', text: 't', scheduledAt: new Date(Date.now() + 200).toISOString() },
        options: { version: '2027-03-01' },
      });
      expect(sent.body.data.status).toBe('queued');
      const delivered = async () =>
        (await server.db.selectFrom('events').select(['api_version', 'data']).where('type', '=', 'email.message.delivered').execute()).find((e) => JSON.parse(e.data).id === sent.body.data.id);
      await expect.poll(delivered, { timeout: 5000, interval: 50 }).toBeDefined();
      return (await delivered())!.api_version;
    };
    expect(await deliveredIn(BEFORE)).toBe('2026-09-01');
    expect(await deliveredIn(ON)).toBe('2027-03-01');
  });
});
