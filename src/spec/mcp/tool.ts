/**
 * An action as an MCP tool: named `<face>_<action>`, titled by its `title` or its summary, described by its
 * summary and description, its payload and result schemas in the newest stable version with every reference
 * inlined and an object at each root, and the annotations its declared effects map to. An action is no tool
 * when the runtime serves it itself (the built-in batch face), when its stream never ends (`streamOnly`), or
 * when the newest version does not serve it.
 */
import { isObject } from '../json-schema.js';
import type { Action, Face, JsonSchema } from '../model.js';
import { flattenRoot } from './flatten.js';
import { inlineRefs } from './inline-refs.js';
import { payloadRules } from './payload-rules.js';
import type { McpTool, McpToolEntry } from './tool-types.js';

/** The property a result that is not an object is wrapped under. */
export const RESULT_PROPERTY = 'result';

export const toolName = (action: Action) => `${action.face}_${action.name}`;

/** Built once per action and version: lint and the emitter both ask. */
const built = new WeakMap<Action, { latest: string; entry: McpToolEntry | undefined }>();

/** The action's tool, or undefined when it is none. */
export function mcpTool(face: Face, action: Action, latest: string): McpToolEntry | undefined {
  const known = built.get(action);
  if (known?.latest === latest) return known.entry;
  const entry = face.builtin || action.streamOnly ? undefined : build(action, latest);
  built.set(action, { latest, entry });
  return entry;
}

function build(action: Action, latest: string): McpToolEntry | undefined {
  const payload = action.variants.find((v) => v.versions.includes(latest))?.schema;
  if (!payload) return undefined;
  const exactInput = inlineRefs(payload);
  const input = flattenRoot(exactInput);
  const output = outputOf(inlineRefs(action.resultSchema));
  const title = action.title ?? titleOf(action.summary);
  const rules = input.exact ? '' : payloadRules(exactInput, input.schema);
  const tool: McpTool = {
    name: toolName(action),
    title,
    description: [action.summary.trim(), action.description?.trim() ?? '', rules].filter(Boolean).join('\n\n'),
    inputSchema: input.schema as McpTool['inputSchema'],
    outputSchema: output.schema as McpTool['outputSchema'],
    annotations: {
      title,
      readOnlyHint: action.effect === 'read',
      destructiveHint: action.effect === 'destroy',
      idempotentHint: action.idempotent,
      openWorldHint: action.external,
    },
  };
  return {
    face: action.face,
    action: action.name,
    scope: action.scope,
    stream: action.stream,
    ...(output.resultProperty ? { resultProperty: output.resultProperty } : {}),
    tool,
    examples: action.examples,
  };
}

/** A title from a summary: its one sentence without the full stop or code marks. */
const titleOf = (summary: string) => summary.trim().replace(/\.$/, '').replace(/`/g, '');

/**
 * MCP wants an object at the root of an output schema. A result that is one (declared so, or all of whose
 * alternatives are) keeps its schema, typed; any other is wrapped, and a server wraps the answer alike.
 */
function outputOf(schema: JsonSchema): { schema: JsonSchema; resultProperty?: string } {
  if (schema.type === 'object') return { schema };
  if (schema.type === undefined && alwaysAnObject(schema)) return { schema: { type: 'object', ...schema } };
  return { schema: { type: 'object', required: [RESULT_PROPERTY], additionalProperties: false, properties: { [RESULT_PROPERTY]: schema } }, resultProperty: RESULT_PROPERTY };
}

/** True when every value the schema admits is an object: one branch of an allOf says so, or every branch of a oneOf/anyOf. */
function alwaysAnObject(schema: unknown): boolean {
  if (!isObject(schema)) return false;
  if (schema.type === 'object') return true;
  if (Array.isArray(schema.allOf) && schema.allOf.some(alwaysAnObject)) return true;
  return (['oneOf', 'anyOf'] as const).some((keyword) => Array.isArray(schema[keyword]) && (schema[keyword] as unknown[]).length > 0 && (schema[keyword] as unknown[]).every(alwaysAnObject));
}
