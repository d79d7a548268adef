/**
 * `dispatch mcp` as a desktop client starts it: a program over stdio, here spawned by the SDK's own stdio
 * client, serving a running server's tools with the key and entity its environment names.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let server: TestServer;
let client: Client;

beforeAll(async () => {
  server = await startServer();
  const { secret } = await server.key({ scopes: ['ai:generate', 'payments:customers'] });
  client = new Client({ name: 'desktop', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', 'src/cli/main.ts', 'mcp'],
      cwd: ROOT,
      env: { ...(process.env as Record<string, string>), DISPATCH_URL: server.url, DISPATCH_API_KEY: secret, DISPATCH_ENTITY: 'desktop' },
      stderr: 'pipe',
    }),
  );
}, 60_000);
afterAll(async () => {
  await client?.close();
  await server?.close();
});

describe('dispatch mcp over stdio', () => {
  it('lists the key\'s tools and calls them through the running server, progress included', async () => {
    const names = (await client.listTools()).tools.map((t) => t.name).sort();
    expect(names).toEqual(['ai_generate', 'payments_createCustomer', 'payments_getCustomer', 'payments_listCustomers', 'payments_updateCustomer']);

    const created = await client.callTool({ name: 'payments_createCustomer', arguments: { name: 'Desk' }, _meta: { idempotencyKey: 'desk-1' } });
    const replayed = await client.callTool({ name: 'payments_createCustomer', arguments: { name: 'Desk' }, _meta: { idempotencyKey: 'desk-1' } });
    expect(replayed.structuredContent).toEqual(created.structuredContent);
    const rows = await server.db.selectFrom('payment_customers').select('name').where('entity_id', '=', 'desktop').execute();
    expect(rows).toEqual([{ name: 'Desk' }]);

    const progress: number[] = [];
    const generated = await client.callTool({ name: 'ai_generate', arguments: { model: 'gpt-4o-mini', prompt: 'Count to three' } }, undefined, { onprogress: (p) => progress.push(p.progress) });
    expect((generated.structuredContent as { text: string }).text.length).toBeGreaterThan(0);
    expect(progress.length).toBeGreaterThan(1);
  });
});
