/**
 * Shapes of `generated/mcp/tools.json`: each action a client may call over MCP, as the tool `tools/list`
 * answers (the SDK's ToolSchema) and what a server needs to run it through the same pipeline as `POST /do`.
 */
import type { Example, JsonSchema } from '../model.js';

/** MCP's tool annotations, every one written: a client reads a missing one as its default (openWorldHint: true). */
export interface McpToolAnnotations {
  title: string;
  /** `effect: read`. */
  readOnlyHint: boolean;
  /** `effect: destroy`. */
  destructiveHint: boolean;
  /** `idempotent`. */
  idempotentHint: boolean;
  /** `external`. */
  openWorldHint: boolean;
}

export interface McpTool {
  /** `<face>_<action>`. */
  name: string;
  title: string;
  /** The summary, the description, and the payload rules its input schema cannot say. */
  description: string;
  /** The payload's schema, references inlined, as one object (flatten.ts). */
  inputSchema: JsonSchema & { type: 'object' };
  /** The result's schema, references inlined; an object, or the result wrapped under `resultProperty`. */
  outputSchema: JsonSchema & { type: 'object' };
  annotations: McpToolAnnotations;
}

export interface McpToolEntry {
  face: string;
  action: string;
  /** The scope a key needs for it. */
  scope: string;
  /** Answers as a stream when asked (as progress notifications over MCP). */
  stream: boolean;
  /** Set when the result is not an object: the tool's structured content is `{ [resultProperty]: result }`. */
  resultProperty?: string;
  tool: McpTool;
  /** The action's examples, as the face file gives them. */
  examples: Example[];
}

export interface McpToolsFile {
  /** The API version whose schemas the tools carry: the newest stable one. */
  apiVersion: string;
  /** Sorted by name. */
  tools: McpToolEntry[];
}
