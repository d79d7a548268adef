/**
 * The two shapes of a tool result (docs/contract.md § Agents): structured content with the same JSON as its
 * text, or an error result whose text is `{"error": …}` and whose `_meta.error` carries the same object.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export function structuredResult(data: Record<string, unknown>, meta?: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data, ...(meta ? { _meta: meta } : {}) };
}

export function errorResult(error: Record<string, unknown>, meta: Record<string, unknown> = {}): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error }) }], _meta: { ...meta, error } };
}
