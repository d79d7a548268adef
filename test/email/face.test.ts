/**
 * The `email` face in test mode over real HTTP, on SQLite and PostgreSQL: messages captured and read back as
 * rendered, with their status history and events; Handlebars templates checked when made and strict when
 * rendered; the mailbox simulator's bounce and complaint putting addresses on the suppression list, later
 * sends to them suppressed at once until the address is taken off; batches answered message by message;
 * scheduled messages captured when their time comes; live sends refused 503 without a transport.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';

const BOUNCE = 'bounce@simulator.dispatch.test';
const COMPLAINT = 'complaint@simulator.dispatch.test';

describe.each([
  { name: 'SQLite', postgres: false },
  { name: 'PostgreSQL', postgres: true },
])('the email face on $name', ({ postgres }) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ postgres, email: { pollMs: 50 } });
  });
  afterAll(() => server?.close());

  const mail = (action: string, payload: unknown, headers: Record<string, string> = {}) => server.post({ face: 'email', action, payload }, { headers });
  const ok = async (action: string, payload: unknown) => {
    const reply = await mail(action, payload);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return reply.body.data;
  };
  const eventsOf = async (type: string) => (await server.db.selectFrom('events').select(['data']).where('type', '=', type).where('entity_id', '=', 'acme').execute()).map((e) => JSON.parse(e.data));

  it('captures a message as it would be sent, delivered at once, with its history and events', async () => {
    const sent = await ok('send', {
      from: 'Acme <hello@acme.test>',
      to: ['Ada <ada@example.com>'],
      cc: ['grace@example.com'],
      subject: 'Welcome',
      text: 'Hello Ada!',
      html: '<p>Hello <b>Ada</b>!</p>',
      headers: { 'X-Campaign': 'welcome' },
      tags: { kind: 'welcome' },
    });
    expect(sent).toMatchObject({ status: 'delivered', subject: 'Welcome', text: 'Hello Ada!', headers: { 'X-Campaign': 'welcome' }, messageId: `<${sent.id}@dispatch>`, attempts: 1 });
    expect(sent.history.map((h: any) => h.status)).toEqual(['queued', 'sent', 'delivered']);
    expect(await ok('get', { id: sent.id })).toEqual(sent);
    expect((await eventsOf('email.message.delivered')).map((m) => m.id)).toContain(sent.id);
    expect((await ok('list', { to: 'ada@example.com' })).items.map((m: any) => m.id)).toContain(sent.id);
    expect((await ok('list', { status: 'bounced' })).items.map((m: any) => m.id)).not.toContain(sent.id);
    const other = await mail('get', { id: sent.id }, { 'x-entity-id': 'elsewhere' });
    expect(other.status).toBe(404);
  });

  it('checks addresses and content at their fields', async () => {
    const cases: [unknown, string][] = [
      [{ from: 'not an address', to: ['a@example.com'], subject: 's', text: 't' }, '/payload/from'],
      [{ from: 'a@example.com', to: ['b@example.com', 'two@a.com, three@b.com'], subject: 's', text: 't' }, '/payload/to/1'],
      // A group is one entry of several addresses: a header line smuggled into a mailbox makes one.
      [{ from: 'a@example.com', to: ['b@example.com'], replyTo: 'x@example.com\r\nBcc: y@evil.test', subject: 's', text: 't' }, '/payload/replyTo'],
      [{ from: 'a@example.com', to: ['b@example.com'], replyTo: 'Friends: y@evil.test;', subject: 's', text: 't' }, '/payload/replyTo'],
      [{ from: 'a@example.com', to: ['b@example.com'], replyTo: 'Ada <ada@example.com>\nBcc: y@evil.test', subject: 's', text: 't' }, '/payload/replyTo'],
      [{ from: 'x@example.com\r\nBcc: y@evil.test', to: ['b@example.com'], subject: 's', text: 't' }, '/payload/from'],
      [{ from: 'a@example.com', to: ['Friends: y@evil.test;'], subject: 's', text: 't' }, '/payload/to/0'],
      [{ from: 'a@example.com', to: ['b@example.com'], text: 't' }, '/payload/subject'],
      [{ from: 'a@example.com', to: ['b@example.com'], subject: 's' }, '/payload/text'],
      [{ from: 'a@example.com', to: ['b@example.com'], subject: 's', text: 't', scheduledAt: new Date(Date.now() + 40 * 86_400_000).toISOString() }, '/payload/scheduledAt'],
      [{ from: 'a@example.com', to: ['b@example.com'], subject: 's', text: 't', scheduledAt: '2026-12-31T23:59:60Z' }, '/payload/scheduledAt'],
      [{ from: 'a@example.com', to: ['b@example.com'], subject: 's', text: 't', headers: { 'Content-Type': 'text/html' } }, '/payload/headers/Content-Type'],
      [{ from: 'a@example.com', to: ['b@example.com'], subject: 's', text: 't', headers: { 'X Campaign': 'spring' } }, '/payload/headers/X Campaign'],
    ];
    for (const [payload, param] of cases) {
      const reply = await mail('send', payload);
      expect([reply.status, reply.body.error.code, reply.body.error.param], JSON.stringify(payload)).toEqual([400, 'payload_invalid', param]);
    }
    const replying = await ok('send', { from: 'a@example.com', to: ['b@example.com'], replyTo: 'Ada <ada@example.com>', subject: 's', text: 't' });
    expect(replying.replyTo).toBe('Ada <ada@example.com>');
  });

  it('renders templates strictly and refuses ones that do not compile', async () => {
    const broken = await mail('createTemplate', { name: 'broken', subject: 'Hi {{name', text: 'x' });
    expect([broken.status, broken.body.error.code, broken.body.error.param]).toEqual([400, 'template_invalid', '/payload/subject']);
    // Only Handlebars' own helpers: no partials, no helpers of other environments, no log.
    for (const text of ['{{> footer}}', '{{shout name}}', '{{log name}}']) {
      const refused = await mail('createTemplate', { name: 'refused', subject: 'Hi', text });
      expect([refused.status, refused.body.error.code, refused.body.error.param], text).toEqual([400, 'template_invalid', '/payload/text']);
    }
    const template = await ok('createTemplate', { name: 'welcome', subject: 'Welcome, {{name}}', text: 'Hello {{name}}, your code is {{code}}.', html: '<p>Hello {{name}}</p>' });
    expect(template).toMatchObject({ name: 'welcome', subject: 'Welcome, {{name}}' });
    expect((await mail('createTemplate', { name: 'welcome', subject: 'x', text: 'y' })).body.error.code).toBe('template_name_taken');
    const sent = await ok('send', { from: 'hello@acme.test', to: ['ada@example.com'], template: 'welcome', data: { name: 'Ada <3', code: '1234' } });
    expect(sent).toMatchObject({ subject: 'Welcome, Ada <3', text: 'Hello Ada <3, your code is 1234.', html: '<p>Hello Ada &lt;3</p>', template: 'welcome' });
    const missing = await mail('send', { from: 'hello@acme.test', to: ['ada@example.com'], template: 'welcome', data: { name: 'Ada' } });
    expect([missing.status, missing.body.error.param]).toEqual([400, '/payload/data']);
    expect(missing.body.error.message).toContain('code');
    await ok('updateTemplate', { name: 'welcome', subject: 'Hi {{name}}' });
    expect((await ok('getTemplate', { name: 'welcome' })).subject).toBe('Hi {{name}}');
    expect((await ok('listTemplates', {})).items.map((t: any) => t.name)).toEqual(['welcome']);
    expect(await ok('deleteTemplate', { name: 'welcome' })).toEqual({ name: 'welcome', deleted: true });
    expect((await mail('send', { from: 'hello@acme.test', to: ['ada@example.com'], template: 'welcome', data: {} })).body.error).toMatchObject({ code: 'resource_not_found', param: '/payload/template' });
  });

  it('suppresses an address that bounced or complained, until it is taken off the list', async () => {
    const bounced = await ok('send', { from: 'hello@acme.test', to: [BOUNCE], subject: 's', text: 't' });
    expect(bounced.status).toBe('bounced');
    const complained = await ok('send', { from: 'hello@acme.test', to: [COMPLAINT], subject: 's', text: 't' });
    expect(complained.history.map((h: any) => h.status)).toEqual(['queued', 'sent', 'delivered', 'complained']);
    expect((await ok('listSuppressions', {})).items.map((s: any) => [s.address, s.reason])).toEqual([
      [BOUNCE, 'bounce'],
      [COMPLAINT, 'complaint'],
    ]);
    const again = await ok('send', { from: 'hello@acme.test', to: ['ada@example.com'], bcc: [BOUNCE.toUpperCase()], subject: 's', text: 't' });
    expect(again.status).toBe('suppressed');
    expect(again.history.at(-1).detail).toContain(BOUNCE);
    expect((await eventsOf('email.message.bounced')).map((m) => m.id)).toEqual([bounced.id]);
    expect((await eventsOf('email.message.complained')).map((m) => m.id)).toEqual([complained.id]);
    expect(await ok('deleteSuppression', { address: BOUNCE })).toEqual({ address: BOUNCE, deleted: true });
    expect((await ok('send', { from: 'hello@acme.test', to: ['ada@example.com'], subject: 's', text: 't' })).status).toBe('delivered');
  });

  it('answers a batch message by message', async () => {
    const { results } = await ok('sendBatch', {
      messages: [
        { from: 'hello@acme.test', to: ['a@example.com'], subject: 'one', text: 't' },
        { from: 'hello@acme.test', to: ['broken'], subject: 'two', text: 't' },
        { from: 'hello@acme.test', to: ['c@example.com'], subject: 'three', text: 't' },
      ],
    });
    expect(results.map((r: any) => r.message?.status ?? r.error.code)).toEqual(['delivered', 'payload_invalid', 'delivered']);
    expect(results[1].error.param).toBe('/payload/messages/1/to/0');
  });

  it('captures a scheduled message when its time comes', async () => {
    const scheduled = await ok('send', { from: 'hello@acme.test', to: ['ada@example.com'], subject: 'later', text: 't', scheduledAt: new Date(Date.now() + 400).toISOString() });
    expect(scheduled.status).toBe('queued');
    await expect.poll(async () => (await ok('get', { id: scheduled.id })).status, { timeout: 5000, interval: 100 }).toBe('delivered');
  });

  it('suppresses a scheduled message whose address was suppressed before its time came', async () => {
    const later = { 'x-entity-id': 'later' };
    const scheduled = (await mail('send', { from: 'hello@acme.test', to: [COMPLAINT], subject: 'later', text: 't', scheduledAt: new Date(Date.now() + 500).toISOString() }, later)).body.data;
    expect(scheduled.status).toBe('queued');
    expect((await mail('send', { from: 'hello@acme.test', to: [COMPLAINT], subject: 'now', text: 't' }, later)).body.data.status).toBe('complained');
    await expect.poll(async () => (await mail('get', { id: scheduled.id }, later)).body.data.status, { timeout: 5000, interval: 100 }).toBe('suppressed');
  });

  it('refuses live sends without a transport', async () => {
    const { secret } = await server.key({ mode: 'live' });
    const reply = await mail('send', { from: 'hello@acme.test', to: ['ada@example.com'], subject: 's', text: 't' }, { authorization: `Bearer ${secret}` });
    expect([reply.status, reply.body.error.code]).toEqual([503, 'provider_unavailable']);
  });
});
