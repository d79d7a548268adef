/**
 * What `dispatch new` writes of what a call does (`effect`, `idempotent`, `external`): a guess from the
 * action's name, for the author to correct, that the face language accepts as written.
 */
import { describe, expect, it } from 'vitest';
import { starterEffects } from '../../src/scaffold/face-stanza.js';

describe('the starter effects of a new action', () => {
  it.each([
    ['get', { effect: 'read', external: false }],
    ['listUsers', { effect: 'read', external: false }],
    ['search', { effect: 'read', external: false }],
    ['deleteTemplate', { effect: 'destroy', idempotent: true, external: false }],
    ['revoke', { effect: 'destroy', idempotent: true, external: false }],
    ['create', { effect: 'write', idempotent: false, external: false }],
    // A verb is a whole word of the name: `getaway` does not get, `listen` does not list.
    ['getaway', { effect: 'write', idempotent: false, external: false }],
    ['listen', { effect: 'write', idempotent: false, external: false }],
  ])('%s', (action, expected) => {
    expect(starterEffects(action)).toEqual(expected);
  });
});
