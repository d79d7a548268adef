/**
 * The runtime serves whatever catalogue it is given: here the `notes` fixture (its generated dispatch table,
 * platform tables and validators under test/fixtures/notes/expected), with handlers written in this test,
 * through `buildServer` over real HTTP, without touching generated/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyHandler } from '../../src/core/context.js';
import type { Catalogue } from '../../src/core/catalogue.js';
import { ApiError } from '../../src/core/errors.js';
import { handlersModule } from '../helpers/catalogue.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { postStream } from '../helpers/sse.js';

const FIXTURE = new URL('../fixtures/notes/expected/server/', import.meta.url);
// Loaded by URL: the fixture's modules import types by paths that only exist in a generated tree.
const load = (file: string) => import(new URL(file, FIXTURE).href) as Promise<Record<string, any>>;

const notes: Record<string, AnyHandler> = {
  async add(payload, ctx) {
    const { text, tags } = payload as { text: string; tags?: string[] };
    if (text === 'too long for the face') throw new ApiError('note_too_long' as never);
    const note = { id: `note_${ctx.entityId}`, text, ...(tags ? { tags } : {}) };
    ctx.emit('notes.add.succeeded' as never, note as never);
    return note;
  },
  async list(_payload, ctx) {
    ctx.stream.progress(1, 1);
    return { items: [] };
  },
};

let server: TestServer;
beforeAll(async () => {
  const [{ faces, eventTypes }, { platform, errors }, { scopes }] = await Promise.all([load('dispatch.ts'), load('platform.ts'), load('scopes.ts')]);
  const catalogue: Catalogue = { faces, eventTypes, platform, scopes, errors, modules: [handlersModule('notes', notes)] };
  server = await startServer({ catalogue });
});
afterAll(() => server.close());

describe('a fixture catalogue served by buildServer', () => {
  it('routes to its handlers, in its own latest version, and stores the events they emit', async () => {
    const reply = await server.post({ face: 'notes', action: 'add', payload: { text: 'Buy milk', tags: ['home'] } });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({ id: 'note_acme', text: 'Buy milk', tags: ['home'] });
    expect(reply.headers.get('x-api-version')).toBe('2026-06-01');
    const events = await server.db.selectFrom('events').select(['type', 'request_id', 'data']).execute();
    expect(events).toEqual([{ type: 'notes.add.succeeded', request_id: reply.body.meta.requestId, data: JSON.stringify(reply.body.data) }]);
  });

  it('knows only its own faces', async () => {
    const reply = await server.post({ face: 'ai', action: 'generate', payload: { model: 'm', prompt: 'hi' } });
    expect(reply.status).toBe(404);
    expect(reply.body.error).toMatchObject({ code: 'face_not_found', details: { available: ['notes'] } });
  });

  it('validates with its own validators per version, and answers its own error codes', async () => {
    const colour = await server.post({ face: 'notes', action: 'add', payload: { text: 'x', color: 'red' } });
    expect(colour.status).toBe(400);
    expect(colour.body.error).toMatchObject({ code: 'payload_invalid', param: '/payload/color' });
    const old = await server.post({ face: 'notes', action: 'add', payload: { text: 'x', color: 'red' } }, { headers: { 'x-api-version': '2026-01-01' } });
    expect(old.status).toBe(200);
    expect(old.headers.get('deprecation')).toBe(`@${Date.parse('2026-06-01') / 1000}`);
    const faceError = await server.post({ face: 'notes', action: 'add', payload: { text: 'too long for the face' } });
    expect(faceError.status).toBe(400);
    expect(faceError.body.error).toMatchObject({ type: 'invalid_request_error', code: 'note_too_long' });
  });

  it('applies its own limits: the body limit and the time-out range', async () => {
    const big = await server.post(undefined, { raw: JSON.stringify({ face: 'notes', action: 'add', payload: { text: 'x'.repeat(70_000) } }) });
    expect(big.status).toBe(413);
    const timeout = await server.post({ face: 'notes', action: 'add', payload: { text: 'x' }, options: { timeout: 20_000 } });
    expect(timeout.body.error).toMatchObject({ code: 'timeout_out_of_range', details: { max: 10_000 } });
  });

  it('streams the actions it declares streaming', async () => {
    const reply = await postStream(server.url, { face: 'notes', action: 'list', payload: {}, options: { stream: true } }, {
      authorization: `Bearer ${server.adminKey}`,
      'x-entity-id': 'acme',
    });
    expect(reply.events.map((e) => e.event)).toEqual(['start', 'progress', 'result']);
    expect(reply.events.at(-1)!.data.data).toEqual({ items: [] });
  });
});
