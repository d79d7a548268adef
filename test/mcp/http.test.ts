/**
 * The MCP server at `POST /mcp`, used as a client would use it: the SDK's own Client over Streamable HTTP.
 * The tool list is the key's; a read, a write replayed under its idempotency key, a streaming call with its
 * progress and a typed error all go through the pipeline, and each call leaves a usage record.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
const clients: Client[] = [];

beforeAll(async () => {
  // Above the 75 shipped tools, so that every key sees its tools by name.
  server = await startServer({ usageFlushMs: 20, mcpToolLimit: 100 });
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await server?.close();
});

async function connect(key: string, entity = 'mcp-tests'): Promise<Client> {
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', server.url), { requestInit: { headers: { Authorization: `Bearer ${key}`, 'X-Entity-ID': entity } } }));
  clients.push(client);
  return client;
}

const errorOf = (result: object) => JSON.parse(((result as { content: { text: string }[] }).content)[0]!.text).error;

describe('the MCP server over Streamable HTTP', () => {
  it('lists only the tools the key may call, each with every annotation written', async () => {
    const { secret } = await server.key({ scopes: ['ai:generate'] });
    const { tools } = await (await connect(secret)).listTools();
    expect(tools.map((t) => t.name)).toEqual(['ai_generate']);
    expect(tools[0]!.annotations).toEqual({ title: expect.any(String), readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true });
    expect(tools[0]!.inputSchema.type).toBe('object');
    expect(tools[0]!.outputSchema?.type).toBe('object');

    const all = (await (await connect(server.adminKey)).listTools()).tools.map((t) => t.name);
    expect(all).toEqual(expect.arrayContaining(['payments_createCustomer', 'keys_list', 'usage_summary']));
    // A stream that never ends is no tool, nor is the batch envelope.
    expect(all).not.toContain('usage_live');
    expect(all.some((name) => name.startsWith('batch'))).toBe(false);
  });

  it('refuses a request without a valid key with the contract\'s 401, before any MCP message', async () => {
    const response = await fetch(new URL('/mcp', server.url), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: 'Bearer sk_test_nope' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect((await response.json()).error.code).toBe('api_key_invalid');
  });

  it('runs a write once under its idempotency key and a read of what it wrote', async () => {
    const client = await connect(server.adminKey);
    const args = { name: 'Grace Hopper', email: 'grace@example.com' };
    const first = await client.callTool({ name: 'payments_createCustomer', arguments: args, _meta: { idempotencyKey: 'mcp-create-1' } });
    const again = await client.callTool({ name: 'payments_createCustomer', arguments: args, _meta: { idempotencyKey: 'mcp-create-1' } });
    expect(first.isError).toBeFalsy();
    const customer = first.structuredContent as { id: string; name: string };
    expect(customer).toMatchObject({ id: expect.stringMatching(/^cus_/), name: 'Grace Hopper' });
    expect(again.structuredContent).toEqual(customer);

    const read = await client.callTool({ name: 'payments_getCustomer', arguments: { id: customer.id } });
    expect(read.structuredContent).toEqual(customer);
    const listed = await server.db.selectFrom('payment_customers').select('id').where('entity_id', '=', 'mcp-tests').execute();
    expect(listed.map((r) => r.id)).toEqual([customer.id]);
  });

  it('sends a streaming action\'s events as progress and ends with its result', async () => {
    const client = await connect(server.adminKey);
    const progress: { progress: number; message?: string }[] = [];
    const result = await client.callTool({ name: 'ai_generate', arguments: { model: 'gpt-4o-mini', prompt: 'Say hello in five words' } }, undefined, { onprogress: (p) => progress.push(p) });
    expect(result.isError).toBeFalsy();
    const deltas = progress.map((p) => JSON.parse(p.message!)).filter((m) => m.event === 'delta');
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((d) => d.data.text).join('')).toBe((result.structuredContent as { text: string }).text);
    expect(progress.map((p) => p.progress)).toEqual(progress.map((_, i) => i + 1));
  });

  it('answers a refusal as an error result with the envelope\'s type, code, message and request id', async () => {
    const client = await connect(server.adminKey);
    const invalid = await client.callTool({ name: 'ai_generate', arguments: { model: 'gpt-4o-mini' } });
    expect(invalid.isError).toBe(true);
    expect(errorOf(invalid)).toMatchObject({ type: 'invalid_request_error', code: 'payload_invalid', status: 400, message: expect.any(String), requestId: expect.stringMatching(/^req_/) });

    const { secret } = await server.key({ entities: ['only-this-one'] });
    const elsewhere = await (await connect(secret, 'another')).callTool({ name: 'keys_list', arguments: {} });
    expect(errorOf(elsewhere)).toMatchObject({ type: 'permission_error', code: 'entity_forbidden', status: 403 });

    const unknown = await client.callTool({ name: 'payments_doesNotExist', arguments: {} });
    expect(errorOf(unknown).code).toBe('action_not_found');
  });

  it('carries Retry-After in the error result of a call past its rate limit', async () => {
    const { secret } = await server.key({ scopes: ['keys:read'], tier: 'free' });
    const client = await connect(secret, 'limited');
    // The free tier lets a burst of 60 calls through, then one a second.
    let result = await client.callTool({ name: 'keys_list', arguments: {} });
    for (let calls = 1; !result.isError && calls < 120; calls++) result = await client.callTool({ name: 'keys_list', arguments: {} });
    const refused = errorOf(result);
    expect(refused).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded', status: 429, retryAfter: expect.any(Number) });
    expect(refused.retryAfter).toBeGreaterThan(0);
  });

  it('records each tool call as a call of its action', async () => {
    const { secret, id } = await server.key({ scopes: ['keys:read'] });
    const client = await connect(secret, 'recorded');
    const answers = [await client.callTool({ name: 'keys_list', arguments: {} }), await client.callTool({ name: 'keys_list', arguments: { limit: 0 } })];
    const ids = answers.map((a) => (a._meta as { requestId: string }).requestId);
    await expect
      .poll(async () => (await server.db.selectFrom('usage_records').select(['request_id', 'face', 'action', 'status']).where('key_id', '=', id).orderBy('id').execute()), { timeout: 5000 })
      .toEqual([
        { request_id: ids[0], face: 'keys', action: 'list', status: 200 },
        { request_id: ids[1], face: 'keys', action: 'list', status: 400 },
      ]);
  });
});

describe('the MCP server past its tool limit', () => {
  let small: TestServer;
  beforeAll(async () => {
    // The default limit, 40: the admin key may call all 75 shipped tools.
    small = await startServer();
  });
  afterAll(() => small?.close());

  it('lists three tools that search, describe and invoke the key\'s actions', async () => {
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', small.url), { requestInit: { headers: { Authorization: `Bearer ${small.adminKey}`, 'X-Entity-ID': 'meta' } } }));
    clients.push(client);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['search_actions', 'describe_action', 'invoke_action']);

    const found = (await client.callTool({ name: 'search_actions', arguments: { query: 'customer', face: 'payments' } })).structuredContent as { actions: { tool: string }[] };
    expect(found.actions.map((a) => a.tool)).toContain('payments_createCustomer');
    const described = (await client.callTool({ name: 'describe_action', arguments: { tool: 'payments_createCustomer' } })).structuredContent as { tool: { inputSchema: { properties: object } }; scope: string };
    expect(described.scope).toBe('payments:customers');
    expect(Object.keys(described.tool.inputSchema.properties)).toEqual(expect.arrayContaining(['email', 'name']));
    const invoked = await client.callTool({ name: 'invoke_action', arguments: { tool: 'payments_createCustomer', arguments: { name: 'Ada' } } });
    expect(invoked.structuredContent).toMatchObject({ id: expect.stringMatching(/^cus_/), name: 'Ada' });
    expect(errorOf(await client.callTool({ name: 'invoke_action', arguments: { tool: 'nope_nothing', arguments: {} } })).code).toBe('action_not_found');
  });
});
