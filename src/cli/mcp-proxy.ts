/**
 * The stdio side of `dispatch mcp`: an MCP server on stdin and stdout whose `tools/list` and `tools/call`
 * are those of a running server's `POST /mcp`, reached with the SDK's own client. A call's progress is
 * passed back under the token its caller gave, and its cancellation is passed on.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, CallToolResultSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { packageVersion } from '../server/config.js';

/** A tool call may run as long as the server lets a call run, and longer while it reports progress. */
const CALL_TIMEOUT_MS = 600_000;

export async function serveOverStdio(connection: { url: string; key: string; entity: string }): Promise<void> {
  const endpoint = new URL('/mcp', connection.url);
  const headers = { Authorization: `Bearer ${connection.key}`, 'X-Entity-ID': connection.entity };
  const upstream = new Client({ name: 'dispatch-mcp', version: packageVersion() });
  try {
    await upstream.connect(new StreamableHTTPClientTransport(endpoint, { requestInit: { headers } }));
  } catch (error) {
    process.stderr.write(`dispatch mcp: cannot reach ${endpoint.href} (${(error as Error).message}). Is the server running there (--url, DISPATCH_URL), and is the key right?\n`);
    process.exitCode = 1;
    return;
  }
  const server = new Server({ name: 'unified-dispatch', title: 'Unified Dispatch', version: packageVersion() }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, ({ params }) => upstream.listTools(params));
  server.setRequestHandler(CallToolRequestSchema, async ({ params }, extra) => {
    const token = params._meta?.progressToken;
    // Progress is passed on in order, and all of it before the result: a client stops listening for a call's
    // progress once its result arrives, and the server's last events and its result can come in one read.
    let forwarded = Promise.resolve();
    const result = await upstream.request({ method: 'tools/call', params }, CallToolResultSchema, {
      signal: extra.signal,
      timeout: CALL_TIMEOUT_MS,
      resetTimeoutOnProgress: true,
      ...(token !== undefined
        ? { onprogress: (progress) => void (forwarded = forwarded.then(() => extra.sendNotification({ method: 'notifications/progress', params: { ...progress, progressToken: token } }))) }
        : {}),
    });
    await forwarded;
    return result;
  });
  server.onclose = () => void upstream.close();
  await server.connect(new StdioServerTransport());
}
