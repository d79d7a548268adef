/**
 * `generated/mcp/tools.json`: every action a client may call over MCP (spec/mcp/tool.ts), with the scope
 * that guards it and whether it streams, so that a server lists a key's tools and runs each call through
 * the same pipeline as `POST /do`, for whatever catalogue it was generated from. Lint has checked every tool
 * against the clients' limits before this is written.
 */
import { mcpTool } from '../spec/mcp/tool.js';
import type { McpToolsFile } from '../spec/mcp/tool-types.js';
import type { Catalog } from '../spec/model.js';

export const MCP_TOOLS_PATH = 'mcp/tools.json';

export function emitMcpTools(catalog: Catalog): string {
  const { latest } = catalog.platform;
  const tools = catalog.faces.flatMap((face) => face.actions.flatMap((action) => mcpTool(face, action, latest) ?? []));
  tools.sort((a, b) => (a.tool.name < b.tool.name ? -1 : a.tool.name > b.tool.name ? 1 : 0));
  const file: McpToolsFile = { apiVersion: latest, tools };
  return `${JSON.stringify(file, null, 2)}\n`;
}
