/**
 * The three tools a key with more actions than the server lists sees instead of them: `search_actions` finds
 * actions by words, face or scope; `describe_action` gives one's full tool (its input and output schemas)
 * and examples; `invoke_action` calls one by name. Each answers only about actions the key may call.
 */
import type { McpTool, McpToolEntry } from '../../spec/mcp/tool-types.js';

export const SEARCH = 'search_actions';
export const DESCRIBE = 'describe_action';
export const INVOKE = 'invoke_action';

/** How many actions a search answers unless told otherwise, and at most. */
const DEFAULT_RESULTS = 20;
const MAX_RESULTS = 50;

const toolName = { type: 'string', description: 'The action\'s tool name, `<face>_<action>`, as search_actions answers it.' } as const;

export const META_TOOLS: readonly McpTool[] = [
  {
    name: SEARCH,
    title: 'Search the actions',
    description:
      'Finds the actions this key may call, by words of their name, title or description, by face or by scope. Answers each one\'s tool name, title and summary; describe_action gives its schemas, invoke_action calls it.',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      properties: {
        query: { type: 'string', description: 'Words that must all appear (any case) in the tool name, title or description.' },
        face: { type: 'string', description: 'Only the actions of this face (`payments`).' },
        scope: { type: 'string', description: 'Only the actions this scope guards (`payments:write`).' },
        limit: { type: 'integer', minimum: 1, maximum: MAX_RESULTS, description: `At most this many (default ${DEFAULT_RESULTS}).` },
      },
    },
    outputSchema: {
      type: 'object',
      required: ['actions', 'more'],
      additionalProperties: false,
      properties: {
        actions: {
          type: 'array',
          items: {
            type: 'object',
            required: ['tool', 'title', 'summary', 'face', 'scope', 'readOnly'],
            additionalProperties: false,
            properties: {
              tool: { type: 'string' },
              title: { type: 'string' },
              summary: { type: 'string' },
              face: { type: 'string' },
              scope: { type: 'string' },
              readOnly: { type: 'boolean' },
            },
          },
        },
        more: { type: 'boolean', description: 'True when more actions match than were answered: narrow the search.' },
      },
    },
    annotations: { title: 'Search the actions', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  {
    name: DESCRIBE,
    title: 'Describe an action',
    description: 'Gives one action\'s tool as a full tool definition (description, input schema, output schema, annotations), with its scope and examples, to call it with invoke_action.',
    inputSchema: { type: 'object', required: ['tool'], additionalProperties: false, properties: { tool: toolName } },
    outputSchema: {
      type: 'object',
      required: ['tool', 'scope', 'stream', 'examples'],
      properties: {
        tool: { type: 'object', description: 'The tool definition, as tools/list would give it.' },
        scope: { type: 'string' },
        stream: { type: 'boolean', description: 'Whether a call sends progress notifications as it goes, given a progress token.' },
        examples: { type: 'array', items: { type: 'object' } },
      },
    },
    annotations: { title: 'Describe an action', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  {
    name: INVOKE,
    title: 'Invoke an action',
    description:
      'Calls one action by its tool name with its arguments (the input its describe_action schema gives). Answers what the action\'s own tool would: its result, or an error result. What the call does is what the action does: describe it first.',
    inputSchema: {
      type: 'object',
      required: ['tool', 'arguments'],
      additionalProperties: false,
      properties: { tool: toolName, arguments: { type: 'object', description: 'The action\'s input.' } },
    },
    outputSchema: { type: 'object', description: 'The action\'s result, as its own tool\'s output schema says.' },
    // The action invoked may write, destroy, repeat its effect or reach outside: the worst of them is said.
    annotations: { title: 'Invoke an action', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  },
];

/** The first sentence of a tool's description: its summary. */
const summaryOf = (tool: McpTool) => tool.description.split('\n')[0]!;

export function search(callable: ReadonlyMap<string, McpToolEntry>, args: { query?: string; face?: string; scope?: string; limit?: number }) {
  const words = (args.query ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  const found = [...callable.values()].filter((entry) => {
    if (args.face !== undefined && entry.face !== args.face) return false;
    if (args.scope !== undefined && entry.scope !== args.scope) return false;
    const text = `${entry.tool.name} ${entry.tool.title} ${entry.tool.description}`.toLowerCase();
    return words.every((word) => text.includes(word));
  });
  // The schema says 1 to 50; a client that sends more or less, or a fraction, gets the nearest it allows.
  const limit = Math.min(Math.max(1, Math.trunc(args.limit ?? DEFAULT_RESULTS)), MAX_RESULTS);
  return {
    actions: found.slice(0, limit).map((entry) => ({
      tool: entry.tool.name,
      title: entry.tool.title,
      summary: summaryOf(entry.tool),
      face: entry.face,
      scope: entry.scope,
      readOnly: entry.tool.annotations.readOnlyHint,
    })),
    more: found.length > limit,
  };
}

export function describe(entry: McpToolEntry) {
  return { tool: entry.tool, scope: entry.scope, stream: entry.stream, examples: entry.examples };
}
