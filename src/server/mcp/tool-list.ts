/**
 * The tools a key sees over MCP (docs/contract.md § Agents): one per action its scopes allow, from the
 * catalogue's generated tool file. A key whose own list is longer than the server's limit sees three tools
 * instead, to search the actions, describe one and invoke one (meta-tools.ts), so that a large catalogue
 * stays within what clients and models take.
 */
import { holdsScope } from '../../core/grants.js';
import type { McpTool, McpToolEntry, McpToolsFile } from '../../spec/mcp/tool-types.js';
import { META_TOOLS } from './meta-tools.js';

export interface KeyTools {
  /** The tools `tools/list` answers. */
  readonly listed: readonly McpTool[];
  /** Every action the key may call, by tool name. */
  readonly callable: ReadonlyMap<string, McpToolEntry>;
  /** True when the list is the meta tools. */
  readonly meta: boolean;
}

export function keyTools(file: McpToolsFile, scopes: readonly string[], limit: number): KeyTools {
  const entries = file.tools.filter((entry) => holdsScope(scopes, entry.scope));
  const callable = new Map(entries.map((entry) => [entry.tool.name, entry]));
  const meta = entries.length > limit;
  return { listed: meta ? META_TOOLS : entries.map((entry) => entry.tool), callable, meta };
}
