/**
 * The facts of an action's docs entry about what a call does (its declared `effect`, `idempotent` and
 * `external`) and the MCP tool it is served as, if any (spec/mcp/tool.ts).
 */
import type { Action, Face } from '../spec/model.js';
import { mcpTool } from '../spec/mcp/tool.js';
import { code, type Fact } from './docs-tables.js';

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

export function toolFact(face: Face, action: Action, latest: string): Fact {
  const entry = mcpTool(face, action, latest);
  if (entry) return { label: 'MCP tool', value: code(entry.tool.name) };
  if (face.builtin) return { label: 'MCP tool', value: 'none: the runtime serves it itself' };
  if (action.streamOnly) return { label: 'MCP tool', value: 'none: it answers only as a stream (`streamOnly`)' };
  return { label: 'MCP tool', value: 'none: the newest version does not serve it' };
}
