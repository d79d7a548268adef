/**
 * Event patterns are checked against the event types of the catalogue a server serves (the handler
 * context's), not against generated/: two servers in one process, one serving the shipped catalogue and one
 * the same catalogue without the `keys` face's events, each accept and refuse by their own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Catalogue } from '../../src/core/catalogue.js';
import { shippedCatalogue } from '../../src/server/shipped.js';
import { startServer, type TestServer } from '../helpers/server.js';

let shipped: TestServer;
let narrower: TestServer;
beforeAll(async () => {
  const catalogue = shippedCatalogue();
  const withoutKeyEvents: Catalogue = { ...catalogue, eventTypes: new Map([...catalogue.eventTypes].filter(([, entry]) => entry.face !== 'keys')) };
  [shipped, narrower] = await Promise.all([startServer({ webhookWorker: false }), startServer({ catalogue: withoutKeyEvents, webhookWorker: false })]);
});
afterAll(async () => {
  await Promise.all([shipped?.close(), narrower?.close()]);
});

describe('event patterns of the served catalogue', () => {
  it('events.list takes a pattern of a face whose events the catalogue has, and refuses it where it has none', async () => {
    const list = { face: 'events', action: 'list', payload: { types: ['auth.*', 'keys.*'] } };
    expect((await shipped.post(list)).status).toBe(200);
    const refused = await narrower.post(list);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'payload_invalid', param: '/payload/types/1' });
    const available = refused.body.error.details.available as string[];
    expect(available).toContain('auth.signup.succeeded');
    expect(available.filter((type) => type.startsWith('keys.'))).toEqual([]);
  });

  it('webhooks.create refuses an exact type its catalogue does not have, the other server takes it', async () => {
    const create = { face: 'webhooks', action: 'create', payload: { url: 'http://127.0.0.1:9/hooks', eventTypes: ['keys.key.created'] } };
    expect((await shipped.post(create)).status).toBe(200);
    const refused = await narrower.post(create);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'payload_invalid', param: '/payload/eventTypes/0' });
  });
});
