/**
 * The MCP server over the large catalogue (test/fixtures/large: 42 faces, 276 actions, 267 of them tools),
 * generated and loaded as the scale bench serves it (bench/scratch-catalogue.ts, bench/load-catalogue.ts),
 * with its generated MCP tools, served in process at the default tool limit (40) and used through the SDK's
 * own Client. A key that may call every action sees the three meta tools, whose `tools/list` answer fits in
 * 3,000 tokens (its JSON text at 4 characters a token, bench/mcp-tokens.ts: no model tokenizer is installed),
 * and reaches every action through them; a key of one face's scope sees that face's tools by name.
 */
import { rmSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalogue } from '../../bench/load-catalogue.js';
import { estimateTokens, toolListText } from '../../bench/mcp-tokens.js';
import { prepare, type Prepared } from '../../bench/scratch-catalogue.js';
import type { McpToolEntry, McpToolsFile } from '../../src/spec/mcp/tool-types.js';
import { startServer, type TestServer } from '../helpers/server.js';

const META = ['search_actions', 'describe_action', 'invoke_action'];
const TOKEN_BUDGET = 3000;

let prepared: Prepared | undefined;
let server: TestServer;
let tools: McpToolsFile;
let admin: Client;
const clients: Client[] = [];

async function connect(key: string): Promise<Client> {
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', server.url), { requestInit: { headers: { Authorization: `Bearer ${key}`, 'X-Entity-ID': 'large' } } }));
  clients.push(client);
  return client;
}

/** The `tools/list` answer's result as it came over the wire, for its size: one stateless POST, as any client sends it. */
async function listedOnTheWire(key: string): Promise<unknown> {
  const response = await fetch(new URL('/mcp', server.url), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${key}`, 'X-Entity-ID': 'large' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  expect(response.status).toBe(200);
  const text = await response.text();
  // The SDK answers a POST as a stream of server-sent events unless told to answer JSON.
  const json = response.headers.get('content-type')?.startsWith('text/event-stream') ? text.split('\n').find((line) => line.startsWith('data: '))!.slice('data: '.length) : text;
  return (JSON.parse(json) as { result: unknown }).result;
}

const entry = (name: string) => tools.tools.find((t) => t.tool.name === name)!;

beforeAll(async () => {
  prepared = await prepare();
  const catalogue = await loadCatalogue(prepared.dir, { mcp: true });
  tools = catalogue.mcp!;
  server = await startServer({ catalogue });
  admin = await connect(server.adminKey);
}, 120_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await server?.close();
  if (prepared) rmSync(prepared.dir, { recursive: true, force: true });
});

describe('the MCP server over the large catalogue', () => {
  it(`lists the three meta tools to a key that may call all of it, in under ${TOKEN_BUDGET} tokens`, async () => {
    expect(tools.tools).toHaveLength(267);
    expect((await admin.listTools()).tools.map((t) => t.name)).toEqual(META);
    const result = await listedOnTheWire(server.adminKey);
    const text = JSON.stringify(result);
    // What the bench reports is what the server answers.
    expect(text).toBe(toolListText(tools, ['*'], 40));
    console.log(`large catalogue, meta tools: tools/list ${text.length} characters, ~${estimateTokens(text)} tokens (4 characters a token)`);
    expect(estimateTokens(text)).toBeLessThanOrEqual(TOKEN_BUDGET);
  });

  it('searches the actions by words, by face and by scope', async () => {
    type Found = { actions: { tool: string; face: string; scope: string; readOnly: boolean }[]; more: boolean };
    const search = async (args: Record<string, unknown>) => (await admin.callTool({ name: 'search_actions', arguments: args })).structuredContent as Found;

    const byWords = await search({ query: 'refund LINE' });
    expect(byWords.actions.map((a) => a.tool)).toEqual(['orders_refundLine']);
    expect(byWords.more).toBe(false);

    const byFace = await search({ face: 'translate' });
    expect(byFace.actions.map((a) => a.tool)).toEqual(tools.tools.filter((t) => t.face === 'translate').map((t) => t.tool.name));
    expect(byFace.actions).toHaveLength(10);
    const firstThree = await search({ face: 'translate', limit: 3 });
    expect(firstThree.actions.map((a) => a.tool)).toEqual(byFace.actions.slice(0, 3).map((a) => a.tool));
    expect(firstThree.more).toBe(true);

    const byScope = await search({ scope: 'orders:write' });
    expect(byScope.actions.map((a) => a.tool)).toEqual(['orders_cancel', 'orders_create', 'orders_delete', 'orders_update']);
    expect(byScope.actions.every((a) => a.face === 'orders' && a.scope === 'orders:write' && !a.readOnly)).toBe(true);

    // Words across every face: more match than a search answers by default.
    const everywhere = await search({ query: 'newest first' });
    expect(everywhere.actions).toHaveLength(20);
    expect(everywhere.more).toBe(true);
    expect(new Set(everywhere.actions.map((a) => a.face)).size).toBeGreaterThan(1);
  });

  it('describes one action: its full tool, scope, whether it streams, and its examples', async () => {
    const described = (await admin.callTool({ name: 'describe_action', arguments: { tool: 'orders_create' } })).structuredContent as Pick<McpToolEntry, 'tool' | 'scope' | 'stream' | 'examples'>;
    const { tool, scope, stream, examples } = entry('orders_create');
    expect(described).toEqual({ tool, scope, stream, examples });
    expect(described.scope).toBe('orders:write');
    expect(described.tool.inputSchema.type).toBe('object');
    expect(Object.keys(described.tool.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['name', 'contacts']));
  });

  it('invokes it: the action\'s example result comes back as structured content', async () => {
    const [example] = entry('orders_create').examples;
    const invoked = await admin.callTool({ name: 'invoke_action', arguments: { tool: 'orders_create', arguments: example!.payload as Record<string, unknown> } });
    expect(invoked.isError).toBeFalsy();
    expect(invoked.structuredContent).toEqual(example!.result);
    expect((invoked._meta as { requestId: string }).requestId).toMatch(/^req_/);

    // The exact payload schema still holds: the call is refused as POST /do would refuse it.
    const refused = await admin.callTool({ name: 'invoke_action', arguments: { tool: 'orders_create', arguments: { name: 42 } } });
    expect(refused.isError).toBe(true);
    expect(JSON.parse((refused.content as { text: string }[])[0]!.text).error).toMatchObject({ code: 'payload_invalid', status: 400 });
  });

  it('lists a key limited to one face\'s scope that face\'s tools by name', async () => {
    const { secret } = await server.key({ scopes: ['orders:*'] });
    const listed = (await (await connect(secret)).listTools()).tools;
    expect(listed.map((t) => t.name)).toEqual(tools.tools.filter((t) => t.face === 'orders').map((t) => t.tool.name));
    expect(listed).toHaveLength(7);
    expect(listed.find((t) => t.name === 'orders_get')!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
  });
});
