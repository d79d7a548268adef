/**
 * The size of a `tools/list` answer in tokens, by the estimate docs/mcp.md § MCP tools documents: the JSON text
 * of its result, four characters a token (no tokenizer of a model API is a dependency here). The MCP section
 * reports it for both catalogues in both modes, and the large catalogue's test holds the meta tools to it.
 */
import { keyTools } from '../src/server/mcp/tool-list.js';
import type { McpToolsFile } from '../src/spec/mcp/tool-types.js';

export const CHARACTERS_PER_TOKEN = 4;

export const estimateTokens = (json: string) => Math.ceil(json.length / CHARACTERS_PER_TOKEN);

/** The JSON text of the `tools/list` result a key of `scopes` gets from a server whose tool limit is `limit`. */
export const toolListText = (file: McpToolsFile, scopes: readonly string[], limit: number) => JSON.stringify({ tools: keyTools(file, scopes, limit).listed });
