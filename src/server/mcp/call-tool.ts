/**
 * One tool call as a call of the pipeline (docs/contract.md § Agents): the same stages as `POST /do` (the
 * key, the entity, scopes, rate limits, validation of the exact payload schema, idempotency, usage records,
 * events and webhooks), with the envelope made from the tool's action and arguments, in the API version the
 * tools were generated for. The key and the entity are the MCP request's own headers; an idempotency key is
 * the tool call's `_meta.idempotencyKey`. A streaming action asked with a progress token reports each of
 * its events as a progress notification; the answer becomes the tool's result, or an error result that
 * carries the envelope's type, code, message and request id (and `Retry-After`, when it has one).
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { StreamSink } from '../../core/context.js';
import type { McpToolEntry } from '../../spec/mcp/tool-types.js';
import { newId } from '../../store/secrets.js';
import type { CallState, Reply } from '../call.js';
import { runCall } from '../pipeline.js';
import type { Runtime } from '../runtime.js';
import { errorResult, structuredResult } from './tool-results.js';

export interface ToolCall {
  /** The request headers a call takes from the MCP request: the key and the entity. */
  readonly headers: Record<string, string | undefined>;
  readonly apiVersion: string;
  readonly arguments: Record<string, unknown>;
  readonly idempotencyKey?: string;
  /** Where progress goes; absent when the client sent no progress token. */
  readonly progress?: (progress: number, message: string) => Promise<void>;
  /** Aborts when the client cancels the call or leaves. */
  readonly signal: AbortSignal;
}

/** A stream's events as MCP progress: one notification per event, numbered in order. */
function progressSink(report: NonNullable<ToolCall['progress']>): StreamSink {
  let sent = 0;
  const send = (event: string, data: unknown) => report(++sent, JSON.stringify({ event, data }));
  return {
    active: true,
    delta: (text) => send('delta', { text }),
    progress: (completed, total, message) => send('progress', { completed, total, ...(message !== undefined ? { message } : {}) }),
    event: (name, data) => send(name, data),
  };
}

export async function callTool(runtime: Runtime, entry: McpToolEntry, request: ToolCall): Promise<CallToolResult> {
  const requestId = newId('req');
  const stream = entry.stream && request.progress !== undefined;
  const call: CallState = {
    requestId,
    startedAt: performance.now(),
    headers: request.headers,
    body: {
      face: entry.face,
      action: entry.action,
      payload: request.arguments,
      options: { version: request.apiVersion, ...(request.idempotencyKey !== undefined ? { idempotencyKey: request.idempotencyKey } : {}), ...(stream ? { stream: true } : {}) },
    },
    responseHeaders: { 'Request-Id': requestId },
    ...(stream ? { openStream: () => ({ sink: progressSink(request.progress!), signal: request.signal }) } : {}),
  };
  return toolResult(entry, await runCall(call, runtime));
}

/** An answer as a tool result: the data as structured content (wrapped when it is not an object), or the error. */
export function toolResult(entry: McpToolEntry | undefined, reply: Reply): CallToolResult {
  const body = reply.body as { data?: unknown; error?: Record<string, unknown>; meta: { requestId: string } };
  const meta = { requestId: body.meta.requestId };
  if (reply.status < 400) {
    const data = entry?.resultProperty !== undefined ? { [entry.resultProperty]: body.data } : (body.data as Record<string, unknown>);
    return structuredResult(data, meta);
  }
  const retryAfter = reply.headers['Retry-After'];
  const error = { ...body.error, requestId: body.meta.requestId, status: reply.status, ...(retryAfter !== undefined ? { retryAfter: Number(retryAfter) } : {}) };
  return errorResult(error, meta);
}
