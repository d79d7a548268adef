/**
 * Rules `unknown-event` and `unused-event` over the whole catalogue: an action may emit another face's event
 * (linked to it for the docs), an event no face declares is reported at the action's `emits` entry, and an
 * event no action of any face emits is reported at its declaration.
 */
import { describe, expect, it } from 'vitest';
import { buildCatalog } from '../../../src/spec/index.js';
import { PLATFORM } from './demo.js';

/** A face `name` declaring `events` (type: summary), whose one action `run` emits `emits`. */
const face = (name: string, events: string[], emits: string[]) => `face: ${name}
summary: A face.
since: 2026-01-01
events:
${events.map((type) => `  ${type}:\n    summary: Something.\n    data: { type: object }`).join('\n') || '  {}'}
actions:
  run:
    summary: Run.
    scope: demo:read
    emits: [${emits.join(', ')}]
    payload: { type: object }
    result: { type: object }
    examples: [{ payload: {}, result: {} }]
    effect: read
    external: false
`;

const build = (a: string, b: string) => buildCatalog('spec', { files: new Map([['platform.yaml', PLATFORM], ['alpha.yaml', a], ['beta.yaml', b]]) });
const found = (result: ReturnType<typeof build>) => result.diagnostics.map((d) => `${d.file}:${d.line}:${d.col} ${d.code}`);

describe('event links', () => {
  it("lets an action emit another face's event, and lists it among the event's emitters", () => {
    const result = build(face('alpha', ['alpha.thing.done'], ['alpha.thing.done']), face('beta', ['beta.thing.done'], ['beta.thing.done', 'alpha.thing.done']));
    expect(found(result)).toEqual([]);
    const alpha = result.catalog!.faces.find((f) => f.name === 'alpha')!;
    expect(alpha.events[0]!.emittedBy).toEqual(['alpha.run', 'beta.run']);
  });

  it('reports an event no face declares at the emits entry, and one no action emits at its declaration', () => {
    const result = build(face('alpha', ['alpha.thing.done', 'alpha.thing.idle'], ['alpha.thing.done']), face('beta', [], ['gamma.thing.done']));
    expect(found(result)).toEqual(['spec/alpha.yaml:8:3 unused-event', 'spec/beta.yaml:10:13 unknown-event']);
    expect(result.diagnostics.map((d) => d.message)).toEqual([
      'Event "alpha.thing.idle" is declared but no action emits it.',
      'Event "gamma.thing.done" is not declared under the "events" of any face.',
    ]);
  });

  it('reports no reference to an event of a face file left out for breaking the face language, which may declare or emit it', () => {
    const broken = face('alpha', ['alpha.thing.done'], ['beta.thing.done']).replace('summary: A face.', 'summery: A face.');
    const result = build(broken, face('beta', ['beta.thing.done'], ['alpha.thing.done']));
    expect(found(result)).toEqual(['spec/alpha.yaml:1:1 schema-violation', 'spec/alpha.yaml:2:1 schema-violation']);
  });
});
