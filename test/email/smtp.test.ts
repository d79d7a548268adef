/**
 * Live e-mail over SMTP to a real server (smtp-server in process, what arrives parsed with mailparser): the
 * headers, text and html parts and envelope as sent; a 4xx reply deferred and tried again until it is
 * accepted; a 5xx reply bounced, its address suppressed and later sends to it suppressed at once; a server
 * that keeps deferring bounced when the retry schedule is spent. Every status change is kept in order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smtpTransport } from '../../src/providers/smtp.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { startSmtp, type TestSmtp } from '../helpers/smtp.js';

let smtp: TestSmtp;
let server: TestServer;
let live: Record<string, string>;
beforeAll(async () => {
  smtp = await startSmtp();
  server = await startServer({ mail: smtpTransport(smtp.url, { timeoutMs: 2000 }), email: { pollMs: 50, retryOffsetsMs: [100, 200] } });
  live = { authorization: `Bearer ${(await server.key({ mode: 'live' })).secret}` };
});
afterAll(async () => {
  await server?.close();
  await smtp?.close();
});

const send = async (payload: Record<string, unknown>) => {
  const reply = await server.post({ face: 'email', action: 'send', payload: { from: 'Acme <hello@acme.test>', subject: 'Hello', text: 'Hi there.', ...payload } }, { headers: live });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.data;
};
const get = async (id: string) => (await server.post({ face: 'email', action: 'get', payload: { id } }, { headers: live })).body.data;
const settled = (id: string, status: string) => expect.poll(async () => (await get(id)).status, { timeout: 8000, interval: 50 }).toBe(status);

describe('live e-mail over SMTP', () => {
  it('sends the message as composed: envelope, headers, text and html', async () => {
    const queued = await send({ to: ['Ada <ada@example.com>'], cc: ['grace@example.com'], bcc: ['audit@acme.test'], replyTo: 'support@acme.test', html: '<p>Hi <b>there</b>.</p>', headers: { 'X-Campaign': 'spring' } });
    expect(queued.status).toBe('queued');
    await settled(queued.id, 'sent');
    const arrived = smtp.received.find((r) => r.mail.messageId === `<${queued.id}@dispatch>`)!;
    expect(arrived.envelope).toEqual({ from: 'hello@acme.test', to: ['ada@example.com', 'grace@example.com', 'audit@acme.test'] });
    const { mail } = arrived;
    expect(mail.from?.value).toEqual([{ name: 'Acme', address: 'hello@acme.test' }]);
    expect([mail.subject, mail.text?.trim(), mail.html, mail.replyTo?.value[0]?.address]).toEqual(['Hello', 'Hi there.', '<p>Hi <b>there</b>.</p>', 'support@acme.test']);
    expect(mail.headers.get('x-campaign')).toBe('spring');
    expect(mail.headers.get('bcc')).toBeUndefined();
    const message = await get(queued.id);
    expect(message.history.map((h: any) => h.status)).toEqual(['queued', 'sent']);
    expect(message.attempts).toBe(1);
  });

  it('attaches storage objects, whose content the message holds even when the object is deleted before it goes', async () => {
    const put = (key: string, text: string, contentType: string) =>
      server.post({ face: 'storage', action: 'put', payload: { key, content: Buffer.from(text).toString('base64'), contentType } }, { headers: live });
    expect((await put('invoices/2026-11.csv', 'item,amount\nwidget,500\n', 'text/csv')).status).toBe(200);
    const missing = await server.post({ face: 'email', action: 'send', payload: { from: 'hello@acme.test', to: ['ada@example.com'], subject: 's', text: 't', attachments: [{ key: 'nothing/here' }] } }, { headers: live });
    expect([missing.status, missing.body.error.code, missing.body.error.param]).toEqual([404, 'resource_not_found', '/payload/attachments/0/key']);
    const queued = await send({ to: ['ada@example.com'], attachments: [{ key: 'invoices/2026-11.csv', filename: 'invoice.csv' }], scheduledAt: new Date(Date.now() + 300).toISOString() });
    expect(queued.attachments).toEqual([{ key: 'invoices/2026-11.csv', filename: 'invoice.csv', contentType: 'text/csv', size: 23 }]);
    expect((await server.post({ face: 'storage', action: 'delete', payload: { key: 'invoices/2026-11.csv' } }, { headers: live })).status).toBe(200);
    await settled(queued.id, 'sent');
    const { mail } = smtp.received.find((r) => r.mail.messageId === `<${queued.id}@dispatch>`)!;
    expect(mail.attachments.map((a) => [a.filename, a.contentType, a.content.toString()])).toEqual([['invoice.csv', 'text/csv', 'item,amount\nwidget,500\n']]);
  });

  it('defers on a 4xx reply and sends when the server accepts', async () => {
    smtp.refuseNext(1, 451, 'Try again later');
    const queued = await send({ to: ['later@example.com'] });
    await settled(queued.id, 'sent');
    const message = await get(queued.id);
    expect(message.history.map((h: any) => h.status)).toEqual(['queued', 'deferred', 'sent']);
    expect(message.history[1].detail).toContain('451');
    expect(message.attempts).toBe(2);
    expect(smtp.received.filter((r) => r.mail.messageId === `<${queued.id}@dispatch>`)).toHaveLength(1);
  });

  it('bounces on a 5xx reply to a recipient and suppresses that address only', async () => {
    smtp.refuseRecipient('nobody@example.com', 550, '5.1.1 No such user here');
    const queued = await send({ to: ['nobody@example.com'] });
    await settled(queued.id, 'bounced');
    expect((await get(queued.id)).lastError).toContain('550');
    const suppressions = async () => (await server.post({ face: 'email', action: 'listSuppressions', payload: {} }, { headers: live })).body.data.items;
    expect((await suppressions()).map((s: any) => [s.address, s.reason, s.message])).toEqual([['nobody@example.com', 'bounce', queued.id]]);
    expect((await send({ to: ['nobody@example.com'] })).status).toBe('suppressed');

    // Refused with the others accepted: sent to them, and only the refused address suppressed.
    const mixed = await send({ to: ['somebody@example.com'], cc: ['NOBODY@example.com'] });
    expect(mixed.status).toBe('suppressed');
    smtp.refuseRecipient('gone@example.com', 550, '5.1.1 Gone');
    const partly = await send({ to: ['here@example.com', 'gone@example.com'] });
    await settled(partly.id, 'sent');
    expect((await suppressions()).map((s: any) => s.address)).toEqual(['gone@example.com', 'nobody@example.com']);
  });

  it('bounces a message the server refuses at DATA without suppressing its recipients', async () => {
    smtp.refuseNext(1, 554, '5.7.1 Message content rejected');
    const queued = await send({ to: ['reader@example.com'] });
    await settled(queued.id, 'bounced');
    const suppressions = (await server.post({ face: 'email', action: 'listSuppressions', payload: {} }, { headers: live })).body.data.items;
    expect(suppressions.map((s: any) => s.address)).not.toContain('reader@example.com');
  });

  it('bounces when the retries are spent', async () => {
    smtp.refuseNext(3, 421, 'Service not available');
    const queued = await send({ to: ['busy@example.com'] });
    await settled(queued.id, 'bounced');
    const message = await get(queued.id);
    expect(message.history.map((h: any) => h.status)).toEqual(['queued', 'deferred', 'deferred', 'bounced']);
    expect(message.history.at(-1).detail).toMatch(/^Gave up after 3 attempts: .*421/);
    // A soft failure is not the address's fault: it stays off the suppression list.
    expect((await send({ to: ['busy@example.com'] })).status).toBe('queued');
  });
});
