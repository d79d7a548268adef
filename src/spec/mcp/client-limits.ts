/**
 * What the MCP clients people use, and the model APIs behind them, refuse in a tool. Each limit is the
 * strictest one known among them (docs/mcp.md § MCP tools cites each):
 * - a name of at most 60 characters of `[A-Za-z0-9_-]` (Cursor drops a tool whose server and tool names
 *   together pass 60; OpenAI and Anthropic take `^[a-zA-Z0-9_-]{1,64}$`);
 * - a description of at most 1,024 characters (OpenAI refuses a longer function description);
 * - an input schema with `type: object` at its root (MCP; OpenAI) and no `oneOf`, `anyOf` or `allOf` there
 *   (Anthropic);
 * - no `$ref` in either schema (Gemini and several clients resolve none);
 * - an output schema with `type: object` at its root (MCP).
 */
import type { JsonSchema } from '../model.js';
import { COMBINATORS } from './flatten.js';
import { firstRef } from './inline-refs.js';
import type { McpTool } from './tool-types.js';

export const TOOL_NAME_MAX = 60;
export const TOOL_DESCRIPTION_MAX = 1024;
const TOOL_NAME = /^[A-Za-z0-9_-]+$/;

export type ToolRule =
  | 'tool-name-too-long'
  | 'tool-name-invalid'
  | 'tool-description-too-long'
  | 'tool-input-not-object'
  | 'tool-input-combinator'
  | 'tool-schema-ref'
  | 'tool-output-not-object';

/** What a problem is about: where in the face file to point. */
export type ToolPart = 'name' | 'description' | 'input' | 'output';

export interface ToolProblem {
  rule: ToolRule;
  part: ToolPart;
  /** The values of the diagnostic's message (diagnostics.ts). */
  args: Record<string, string | number>;
}

export function toolProblems(tool: McpTool): ToolProblem[] {
  const out: ToolProblem[] = [];
  const problem = (rule: ToolRule, part: ToolPart, args: Record<string, string | number> = {}) => out.push({ rule, part, args: { tool: tool.name, ...args } });
  if (tool.name.length > TOOL_NAME_MAX) problem('tool-name-too-long', 'name', { length: tool.name.length, max: TOOL_NAME_MAX });
  if (!TOOL_NAME.test(tool.name)) problem('tool-name-invalid', 'name');
  if (tool.description.length > TOOL_DESCRIPTION_MAX) problem('tool-description-too-long', 'description', { length: tool.description.length, max: TOOL_DESCRIPTION_MAX });
  const input = tool.inputSchema as JsonSchema;
  if (input.type !== 'object') problem('tool-input-not-object', 'input', { found: JSON.stringify(input.type ?? null) });
  for (const keyword of COMBINATORS) if (keyword in input) problem('tool-input-combinator', 'input', { keyword });
  for (const [which, schema] of [['input', input], ['output', tool.outputSchema as JsonSchema | undefined]] as const) {
    const ref = firstRef(schema);
    if (ref !== undefined) problem('tool-schema-ref', which, { which, ref });
  }
  if ((tool.outputSchema as JsonSchema | undefined)?.type !== 'object') problem('tool-output-not-object', 'output', { found: JSON.stringify((tool.outputSchema as JsonSchema | undefined)?.type ?? null) });
  return out;
}
