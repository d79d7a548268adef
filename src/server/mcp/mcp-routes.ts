/**
 * `POST /mcp`: the Model Context Protocol over Streamable HTTP, stateless (docs/contract.md § Agents). Each
 * request is authenticated first, as a call is (`Authorization: Bearer <key>`; a refusal is the contract's
 * 401 envelope, never an MCP message), then answered by an MCP server made for it with that key's tools.
 * `GET` and `DELETE` are refused with 405: without sessions there is no stream to resume or end. The SDK is
 * loaded on the first request, so that a server nobody asks over MCP starts without it.
 */
import { ApiError } from '../../core/errors.js';
import { log } from '../../core/log.js';
import type { CallState } from '../call.js';
import { startOf, type HttpApp } from '../http-app.js';
import type { Runtime } from '../runtime.js';
import { authenticate } from '../stages/authenticate.js';

/** The SDK's transport and the server built on it, loaded once. */
let loading: Promise<[typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js'), typeof import('./mcp-server.js')]> | undefined;
const load = () => (loading ??= Promise.all([import('@modelcontextprotocol/sdk/server/streamableHttp.js'), import('./mcp-server.js')]));

/** Whether a message of the body (one, or a batch) carries a progress token. */
function asksForProgress(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m) => (m as { params?: { _meta?: { progressToken?: unknown } } } | null)?.params?._meta?.progressToken !== undefined);
}

/** The headers of an MCP request that its calls take: the key and the entity. */
const CALL_HEADERS = ['authorization', 'x-entity-id'] as const;

export function registerMcpRoutes({ app, sendError, closing, refuseWhileClosing }: HttpApp, runtime: Runtime, options: { toolLimit: number }): void {
  const tools = runtime.catalogue.mcp;
  if (!tools) return;
  app.post('/mcp', async (request, reply) => {
    if (closing()) return refuseWhileClosing(reply);
    const probe: CallState = { requestId: request.id, startedAt: startOf(reply), headers: request.headers, responseHeaders: { 'Request-Id': request.id } };
    try {
      await authenticate(probe, runtime);
    } catch (error) {
      // A 401 carries its WWW-Authenticate challenge as every 401 does (envelope.ts).
      if (error instanceof ApiError) return sendError(reply, error);
      throw error;
    }
    const [{ StreamableHTTPServerTransport }, { mcpServer }] = await load();
    const headers = Object.fromEntries(CALL_HEADERS.map((name) => [name, request.headers[name] as string | undefined]));
    const server = mcpServer(runtime, { tools, scopes: probe.key!.scopes, headers, toolLimit: options.toolLimit }, runtime.serverVersion);
    // A plain JSON answer unless a message asks for progress, which only a stream of events can carry.
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !asksForProgress(request.body) });
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(request.raw, reply.raw, request.body);
    } catch (error) {
      log.error({ requestId: request.id, err: error }, 'mcp: the request failed');
      if (!reply.raw.headersSent) reply.raw.writeHead(500, { 'Content-Type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }));
    }
  });
  const notAllowed = () => ({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this server is stateless; POST each message.' }, id: null });
  app.get('/mcp', (_request, reply) => reply.code(405).header('Allow', 'POST').send(notAllowed()));
  app.delete('/mcp', (_request, reply) => reply.code(405).header('Allow', 'POST').send(notAllowed()));
}
