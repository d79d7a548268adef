/**
 * The rules over an event's fixture (`trigger:`): each step calls a served action, with a payload its schema
 * accepts once each reference stands for a value of what it names; a reference names an earlier step with a
 * result and a field of that result; an expected error is one the action answers; some step emits the event.
 * Each problem is reported where it is written, with what was likely meant; a sound fixture reaches the
 * OpenAPI document as the event's `x-trigger`.
 */
import { describe, expect, it } from 'vitest';
import { emitOpenApi } from '../../../src/generate/emit-openapi.js';
import { build, found } from './demo.js';

const FIRST = '{ name: thing, call: demo.make, payload: { name: box } }';
const SECOND = '{ call: demo.finish, payload: { id: "${thing.id}" } }';

/** The demo face whose event's fixture is `steps` (one flow mapping a line, from line 11). */
const faceWithFixture = (...steps: string[]) => `face: demo
summary: A demo face.
since: 2026-01-01
errors:
  - { code: thing_stuck, status: 409, type: invalid_request_error, message: The thing is stuck., retryable: false }
events:
  demo.thing.finished:
    summary: A thing was finished.
    data: { type: object }
    trigger:
${steps.map((step) => `      - ${step}`).join('\n')}
actions:
  make:
    summary: Make a thing.
    scope: demo:read
    effect: write
    idempotent: false
    external: false
    payload: { type: object, additionalProperties: false, properties: { name: { type: string }, size: { type: string, enum: [small, large] } } }
    result: { type: object, required: [id], properties: { id: { type: string, pattern: "^thing_" }, owner: { type: object, properties: { name: { type: string } } }, count: { type: integer } } }
    examples: [{ payload: { name: box }, result: { id: thing_01, owner: { name: ada } } }]
  finish:
    summary: Finish a thing.
    scope: demo:read
    effect: write
    idempotent: true
    external: false
    emits: [demo.thing.finished]
    errors: [thing_stuck]
    payload: { type: object, required: [id], additionalProperties: false, properties: { id: { type: string, pattern: "^thing_" }, times: { type: integer } } }
    result: { type: object }
    examples: [{ payload: { id: thing_01 }, result: {} }]
`;

const messages = (steps: string[]) => build(faceWithFixture(...steps)).diagnostics.map((d) => d.message);

describe('event fixtures', () => {
  it('takes a sound fixture and carries it to the OpenAPI document', () => {
    const result = build(faceWithFixture(FIRST, SECOND, '{ call: demo.make }'));
    expect(found(result)).toEqual([]);
    const event = result.catalog!.faces[0]!.events[0]!;
    expect(event.trigger).toEqual([
      { name: 'thing', call: 'demo.make', payload: { name: 'box' } },
      { call: 'demo.finish', payload: { id: '${thing.id}' } },
      { call: 'demo.make', payload: {} },
    ]);
    const document = JSON.parse(emitOpenApi(result.catalog!));
    expect(document.webhooks['demo.thing.finished'].post['x-trigger']).toEqual(event.trigger);
  });

  const cases: [name: string, steps: string[], expected: string[]][] = [
    ['an action no face declares, then no step that emits', [FIRST, '{ call: demo.finsh, payload: { id: "${thing.id}" } }'], ['10:5 trigger-not-emitted', '12:17 trigger-unknown-action']],
    ['a reference to no earlier step', [FIRST, '{ call: demo.finish, payload: { id: "${thng.id}" } }'], ['12:45 trigger-unknown-step']],
    ['a reference to a later step', ['{ call: demo.finish, payload: { id: "${thing.id}" } }', FIRST], ['11:45 trigger-unknown-step']],
    ['a field the result does not have', [FIRST, '{ call: demo.finish, payload: { id: "${thing.owner.nam}" } }'], ['12:45 trigger-unknown-field']],
    ['a reference inside a longer string', [FIRST, '{ call: demo.finish, payload: { id: "thing_${thing.id}" } }'], ['12:45 trigger-reference-invalid']],
    ['a field of the wrong type', [FIRST, '{ call: demo.finish, payload: { id: "${thing.count}" } }'], ['12:45 trigger-payload-mismatch']],
    ['a field of the right type but another kind', [FIRST, '{ call: demo.finish, payload: { id: "${thing.owner.name}" } }'], ['12:45 trigger-payload-mismatch']],
    ['a misspelt field', [FIRST, '{ call: demo.finish, payload: { id: "${thing.id}", tims: 2 } }'], ['12:60 trigger-payload-mismatch']],
    ['a value the schema does not list', ['{ name: thing, call: demo.make, payload: { size: smal } }', SECOND], ['11:58 trigger-payload-mismatch']],
    ['a missing required field', [FIRST, '{ call: demo.finish, payload: { times: 2 } }'], ['12:30 trigger-payload-mismatch']],
    ['an error the action does not answer', [FIRST, `{ call: demo.finish, payload: { id: "\${thing.id}" }, error: thing_stuk }`], ['12:69 trigger-unknown-error']],
    ['a reference to a step that answers an error', ['{ name: thing, call: demo.make, error: thing_stuck }', SECOND], ['12:45 trigger-step-without-result']],
    ['a name taken by an earlier step', [FIRST, '{ name: thing, call: demo.make }', SECOND], ['12:17 trigger-step-name-taken']],
    ['a misspelt key of a step', [FIRST, '{ cal: demo.finish }'], ['12:9 schema-violation', '12:11 schema-violation']],
  ];

  it.each(cases)('reports %s where it is written', (_name, steps, expected) => {
    expect(found(build(faceWithFixture(...steps)))).toEqual(expected);
  });

  it('says what was likely meant', () => {
    expect(messages([FIRST, '{ call: demo.finsh, payload: { id: "${thing.id}" } }'])).toEqual([
      'No step of the fixture of demo.thing.finished calls an action that emits it (it is emitted by demo.finish).',
      'Step 2 calls "demo.finsh", which no face declares. Did you mean "demo.finish"?',
    ]);
    expect(messages([FIRST, '{ call: demo.finish, payload: { id: "${thng.id}" } }'])).toEqual(['Reference "${thng.id}" names no earlier step (the earlier steps named are thing). Did you mean "thing"?']);
    expect(messages([FIRST, '{ call: demo.finish, payload: { id: "${thing.owner.nam}" } }'])).toEqual(['Reference "${thing.owner.nam}": the result of demo.make has no field "nam" there. Did you mean "name"?']);
    expect(messages([FIRST, '{ call: demo.finish, payload: { id: "${thing.owner.name}" } }'])).toEqual([
      'Step 2 does not match the payload schema of demo.finish: /payload/id must match pattern "^thing_" ("${thing.owner.name}" is a value like "ada").',
    ]);
    expect(messages([FIRST, '{ call: demo.finish, payload: { id: "${thing.count}" } }'])).toEqual([
      'Step 2 does not match the payload schema of demo.finish: /payload/id must be string ("${thing.count}" is of type integer).',
    ]);
    expect(messages([FIRST, '{ call: demo.finish, payload: { id: "${thing.id}", tims: 2 } }'])).toEqual(['Step 2 does not match the payload schema of demo.finish: /payload has no field "tims". Did you mean "times"?']);
    expect(messages(['{ name: thing, call: demo.make, payload: { size: smal } }', SECOND])).toEqual([
      'Step 1 does not match the payload schema of demo.make: /payload/size must be equal to one of the allowed values: small, large. Did you mean "small"?',
    ]);
    expect(messages([FIRST, `{ call: demo.finish, payload: { id: "\${thing.id}" }, error: thing_stuk }`])).toEqual([
      'Step 2 expects demo.finish to answer "thing_stuk", which it does not answer (it answers: thing_stuck). Did you mean "thing_stuck"?',
    ]);
  });
});
