/**
 * The MCP server one request talks to (stateless: made for each HTTP request, with the key that request
 * authenticated): `tools/list` answers the key's tools (tool-list.ts), `tools/call` runs one through the
 * pipeline (call-tool.ts) or answers a meta tool (meta-tools.ts). Built on the SDK's low-level `Server`, since
 * the tools carry JSON Schemas the generator wrote, not zod schemas.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { McpToolsFile } from '../../spec/mcp/tool-types.js';
import { callTool, type ToolCall } from './call-tool.js';
import { DESCRIBE, describe, INVOKE, search, SEARCH } from './meta-tools.js';
import { keyTools } from './tool-list.js';
import { errorResult, structuredResult } from './tool-results.js';
import type { Runtime } from '../runtime.js';

export interface McpRequest {
  readonly tools: McpToolsFile;
  /** The scopes of the key the request authenticated. */
  readonly scopes: readonly string[];
  /** The headers its calls take: the key and the entity. */
  readonly headers: Record<string, string | undefined>;
  /** Past this many tools, the key sees the meta tools. */
  readonly toolLimit: number;
}

/** A refusal of the tool call itself (an unknown tool, meta-tool arguments of the wrong shape), as an error result. */
function refused(code: string, message: string): CallToolResult {
  return errorResult({ type: 'invalid_request_error', code, message });
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const optional = (value: unknown, type: 'string' | 'number') => value === undefined || typeof value === type;

/**
 * The SDK's JSON Schema validator, made once: each stateless request has a server of its own, and a new
 * validator (an Ajv instance) per server cost a third of an MCP call's CPU. These servers never use it.
 */
const validator = new AjvJsonSchemaValidator();

export function mcpServer(runtime: Runtime, request: McpRequest, serverVersion: string): Server {
  const server = new Server({ name: 'unified-dispatch', title: 'Unified Dispatch', version: serverVersion }, { capabilities: { tools: {} }, jsonSchemaValidator: validator });
  const tools = keyTools(request.tools, request.scopes, request.toolLimit);

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...tools.listed] }));

  server.setRequestHandler(CallToolRequestSchema, async ({ params }, extra) => {
    const args = params.arguments ?? {};
    const progressToken = params._meta?.progressToken;
    const idempotencyKey = params._meta?.idempotencyKey;
    const invocation = (toolArgs: Record<string, unknown>): ToolCall => ({
      headers: request.headers,
      apiVersion: request.tools.apiVersion,
      arguments: toolArgs,
      ...(typeof idempotencyKey === 'string' ? { idempotencyKey } : {}),
      ...(progressToken !== undefined
        ? { progress: (progress: number, message: string) => extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress, message } }) }
        : {}),
      signal: extra.signal,
    });
    if (tools.meta && params.name === SEARCH) {
      if (!optional(args.query, 'string') || !optional(args.face, 'string') || !optional(args.scope, 'string') || !optional(args.limit, 'number')) {
        return refused('payload_invalid', 'search_actions takes query, face and scope as strings and limit as a number.');
      }
      return structuredResult(search(tools.callable, args));
    }
    if (tools.meta && (params.name === DESCRIBE || params.name === INVOKE)) {
      const entry = typeof args.tool === 'string' ? tools.callable.get(args.tool) : undefined;
      if (!entry) return refused('action_not_found', `No action this key may call is named ${JSON.stringify(args.tool)}; search_actions lists them.`);
      if (params.name === DESCRIBE) {
        return structuredResult(describe(entry));
      }
      if (!isObject(args.arguments)) return refused('payload_invalid', 'invoke_action takes the action\'s input as `arguments`, an object.');
      return callTool(runtime, entry, invocation(args.arguments));
    }
    const entry = tools.callable.get(params.name);
    if (!entry) return refused('action_not_found', `No tool ${JSON.stringify(params.name)} for this key; tools/list names those it may call.`);
    return callTool(runtime, entry, invocation(args));
  });
  return server;
}
