/**
 * Two servers over two catalogues in one process see only their own: the shipped catalogue and the `notes`
 * fixture route only their own faces, the keys face grants only the scopes of the catalogue its server
 * serves (read through the handler's context, never from generated/ at load), and an error code means what
 * the served catalogue declares, and nothing where it is not declared.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Catalogue } from '../../src/core/catalogue.js';
import type { ErrorDefinition, ScopeEntry } from '../../src/core/dispatch-types.js';
import { ApiError } from '../../src/core/errors.js';
import { shippedCatalogue } from '../../src/server/shipped.js';
import { handlersModule, withHandlers } from '../helpers/catalogue.js';
import { startServer, type TestServer } from '../helpers/server.js';

const FIXTURE = new URL('../fixtures/notes/expected/server/', import.meta.url);
const load = (file: string) => import(new URL(file, FIXTURE).href) as Promise<Record<string, any>>;

let shipped: TestServer;
let notes: TestServer;
let widened: TestServer;
let renumbered: TestServer;
/** The code only the notes fixture declares, thrown without a message (so the answer's is the catalogue's). */
const tooLong = () => new ApiError('note_too_long' as never);
beforeAll(async () => {
  const [{ faces, eventTypes }, { platform, errors }, { scopes }] = await Promise.all([load('dispatch.ts'), load('platform.ts'), load('scopes.ts')]);
  const add = async (payload: { text: string }) => {
    if (payload.text === 'too long') throw tooLong();
    return { id: 'note_1', text: 'x' };
  };
  const notesCatalogue: Catalogue = { faces, eventTypes, platform, scopes, errors, modules: [handlersModule('notes', { add })] };
  // The same faces, with note_too_long declared another way: each server answers it as its own catalogue does.
  const declared: ErrorDefinition = errors.get('note_too_long');
  const redeclared: [string, ErrorDefinition] = ['note_too_long', { ...declared, status: 422, type: 'note_error', message: 'Notes are short here.' }];
  const renumberedCatalogue: Catalogue = { ...notesCatalogue, errors: new Map([...errors, redeclared]) };
  // The shipped faces with one scope more: a key may be given it here, and nowhere else. Its ai.models
  // throws the notes fixture's code, which this catalogue does not declare.
  const base = shippedCatalogue();
  const extra: [string, ScopeEntry] = ['gadgets:read', { description: 'Read gadgets.', actions: [] }];
  const widenedCatalogue = withHandlers({ ...base, scopes: new Map([...base.scopes, extra]) }, 'ai', (handlers) => ({
    ...handlers,
    models: async () => {
      throw tooLong();
    },
  }));
  [shipped, notes, widened, renumbered] = await Promise.all([
    startServer(),
    startServer({ catalogue: notesCatalogue }),
    startServer({ catalogue: widenedCatalogue }),
    startServer({ catalogue: renumberedCatalogue }),
  ]);
});
afterAll(() => Promise.all([shipped, notes, widened, renumbered].map((s) => s.close())));

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

  it('answer an error code as their own catalogue declares it, and a code it does not declare as a fault', async () => {
    const tooLongNote = { face: 'notes', action: 'add', payload: { text: 'too long' } };
    const here = await notes.post(tooLongNote);
    expect(here.status).toBe(400);
    expect(here.body.error).toMatchObject({ type: 'invalid_request_error', code: 'note_too_long', message: 'The note is too long.' });
    const redeclared = await renumbered.post(tooLongNote);
    expect(redeclared.status).toBe(422);
    expect(redeclared.body.error).toMatchObject({ type: 'note_error', code: 'note_too_long', message: 'Notes are short here.' });
    const undeclared = await widened.post({ face: 'ai', action: 'models', payload: {} });
    expect(undeclared.status).toBe(500);
    expect(undeclared.body.error).toMatchObject({ type: 'api_error', code: 'internal_error' });
    expect(JSON.stringify(undeclared.body)).not.toContain('note_too_long');
  });
});
