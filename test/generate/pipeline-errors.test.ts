/**
 * The pipeline's codes the OpenAPI document lists on every operation (src/generate/pipeline-errors.ts) are
 * those the server's stages raise: each code a stage, the batch runner, the deadline, the body parser or the
 * executor answers is listed for some action (or for `POST /do`'s unknown face and action), and the
 * per-action ones follow the action: a stream refusal as it streams, a missing route as its versions.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { callCodes, ENVELOPE_ROUTE_CODES, requestCodes } from '../../src/generate/pipeline-errors.js';
import { fromRoot } from '../../src/package-root.js';
import { buildCatalog } from '../../src/spec/index.js';

const catalog = buildCatalog(fromRoot('faces')).catalog!;
const { versions } = catalog.platform;
const actions = catalog.faces.flatMap((face) => face.actions.map((action) => ({ face, action })));
const find = (id: string) => actions.find(({ action }) => action.id === id)!;

/** The codes `new ApiError('…'` names in a source file. */
const raised = (path: string) => [...readFileSync(fromRoot(path), 'utf8').matchAll(/new ApiError\('([a-z_]+)'/g)].map((m) => m[1]!);

describe('the pipeline codes of the OpenAPI document', () => {
  it('list every code the stages, the batch runner, the deadline, the body parser and the executor raise', () => {
    const sources = [
      ...readdirSync(fromRoot('src', 'server', 'stages')).map((name) => `src/server/stages/${name}`),
      'src/server/batch.ts',
      'src/server/deadline.ts',
      'src/server/json-body.ts',
      'src/core/errors.ts',
    ];
    const codes = new Set(sources.flatMap(raised));
    expect(codes.size).toBeGreaterThan(30);
    const listed = new Set([...ENVELOPE_ROUTE_CODES, ...actions.flatMap(({ face, action }) => callCodes(face, action, versions))]);
    expect([...codes].filter((code) => !listed.has(code))).toEqual([]);
  });

  it('refuse a stream as the action streams, and count a batch by its requests', () => {
    const generate = callCodes(find('ai.generate').face, find('ai.generate').action, versions);
    expect(generate).toEqual(expect.arrayContaining(['request_aborted', 'rate_limit_exceeded']));
    expect(generate).not.toContain('stream_not_supported');
    expect(callCodes(find('ai.embed').face, find('ai.embed').action, versions)).toContain('stream_not_supported');
    expect(callCodes(find('usage.live').face, find('usage.live').action, versions)).toContain('stream_required');
    const batch = callCodes(find('batch.run').face, find('batch.run').action, versions);
    expect(batch).toEqual(expect.arrayContaining(['batch_too_large', 'atomic_not_supported', 'batch_aborted']));
    expect(batch).not.toContain('rate_limit_exceeded');
    // A request of a batch never streams: a stream-only action is refused for asking none.
    expect(requestCodes(find('usage.live').face, find('usage.live').action, versions, true)).toContain('stream_required');
    expect(requestCodes(find('ai.embed').face, find('ai.embed').action, versions, true)).not.toContain('stream_not_supported');
  });

  it('answer a version that does not serve the action as the route stage does', () => {
    const served = (id: string) => new Set(find(id).action.variants.flatMap((v) => v.versions));
    const live = versions.filter((v) => v.status !== 'retired').map((v) => v.date);
    const everywhere = actions.find(({ action }) => live.every((date) => served(action.id).has(date)))!;
    expect(callCodes(everywhere.face, everywhere.action, versions).filter((code) => code.endsWith('_not_found'))).toEqual([]);
    const later = actions.find(({ action }) => !live.every((date) => served(action.id).has(date)))!;
    expect(callCodes(later.face, later.action, versions).some((code) => code === 'action_not_found' || code === 'face_not_found')).toBe(true);
  });
});
