/**
 * The fact of an action's docs entry about what a call does: its declared `effect`, `idempotent` and
 * `external`.
 */
import type { Action } from '../spec/model.js';
import type { Fact } from './docs-tables.js';

const EFFECTS = {
  read: '`read`: a call changes nothing',
  write: '`write`: a call creates or changes something',
  destroy: '`destroy`: a call may delete, revoke or end something',
} as const;

export function effectFact(action: Action): Fact {
  const repeat = action.effect === 'read' ? '' : action.idempotent ? '; idempotent: a repeat with the same payload changes nothing more' : '; not idempotent: a repeat may act again';
  const reach = action.external ? '; `external`: it may reach a system outside the platform' : '';
  return { label: 'Effect', value: EFFECTS[action.effect] + repeat + reach };
}
