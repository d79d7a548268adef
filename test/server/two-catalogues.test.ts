/**
 * Two servers over two catalogues in one process see only their own: the shipped catalogue and the `notes`
 * fixture route only their own faces, and the keys face grants only the scopes of the catalogue its server
 * serves (read through the handler's context, never from generated/ at load).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Catalogue } from '../../src/core/catalogue.js';
import type { ScopeEntry } from '../../src/core/dispatch-types.js';
import { shippedCatalogue } from '../../src/server/shipped.js';
import { handlersModule } from '../helpers/catalogue.js';
import { startServer, type TestServer } from '../helpers/server.js';

const FIXTURE = new URL('../fixtures/notes/expected/server/', import.meta.url);
const load = (file: string) => import(new URL(file, FIXTURE).href) as Promise<Record<string, any>>;

let shipped: TestServer;
let notes: TestServer;
let widened: TestServer;
beforeAll(async () => {
  const [{ faces, eventTypes }, { platform, errors }, { scopes }] = await Promise.all([load('dispatch.ts'), load('platform.ts'), load('scopes.ts')]);
  const notesCatalogue: Catalogue = { faces, eventTypes, platform, scopes, errors, modules: [handlersModule('notes', { add: async () => ({ id: 'note_1', text: 'x' }) })] };
  // The shipped faces with one scope more: a key may be given it here, and nowhere else.
  const base = shippedCatalogue();
  const extra: [string, ScopeEntry] = ['gadgets:read', { description: 'Read gadgets.', actions: [] }];
  const widenedCatalogue: Catalogue = { ...base, scopes: new Map([...base.scopes, extra]) };
  [shipped, notes, widened] = await Promise.all([startServer(), startServer({ catalogue: notesCatalogue }), startServer({ catalogue: widenedCatalogue })]);
});
afterAll(() => Promise.all([shipped, notes, widened].map((s) => s.close())));

describe('two catalogues in one process', () => {
  it('route only their own faces', async () => {
    expect((await notes.post({ face: 'notes', action: 'add', payload: { text: 'x' } })).status).toBe(200);
    const elsewhere = await shipped.post({ face: 'notes', action: 'add', payload: { text: 'x' } });
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body.error.code).toBe('face_not_found');
    const noKeys = await notes.post({ face: 'keys', action: 'list', payload: {} });
    expect(noKeys.body.error).toMatchObject({ code: 'face_not_found', details: { available: ['notes'] } });
  });

  it('grant only the scopes of their own catalogue', async () => {
    const create = { face: 'keys', action: 'create', payload: { name: 'reader', scopes: ['gadgets:read'], entities: ['acme'] } };
    const here = await widened.post(create);
    expect(here.body.error).toBeUndefined();
    expect(here.status).toBe(200);
    expect(here.body.data.scopes).toEqual(['gadgets:read']);
    const there = await shipped.post(create);
    expect(there.status).toBe(400);
    expect(there.body.error).toMatchObject({ code: 'payload_invalid', param: '/payload/scopes/0' });
  });
});
