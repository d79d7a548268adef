/**
 * `dispatch mcp`: the MCP server over stdio, for desktop clients that start their servers as programs
 * (docs/contract.md § Agents). It serves a running server's tools, as a client of that server's `POST /mcp`
 * (DISPATCH_URL, DISPATCH_API_KEY, DISPATCH_ENTITY, or --url, --key, --entity), so that limits, stores and
 * usage records are the server's: each message is passed on, progress notifications included. Nothing is
 * written to stdout but the protocol; what goes wrong is said on stderr.
 */
import type { Command } from 'commander';
import { keyProblem } from './api-key.js';

interface Connection {
  url: string;
  key?: string;
  entity: string;
}

export function registerMcp(program: Command): void {
  program
    .command('mcp')
    .description('Serve a running server\'s tools to an MCP client over stdio (as a client of its POST /mcp).')
    .option('--url <url>', 'the server (DISPATCH_URL)', process.env.DISPATCH_URL ?? 'http://127.0.0.1:8787')
    .option('--key <key>', 'the API key whose tools are served (DISPATCH_API_KEY)', process.env.DISPATCH_API_KEY)
    .option('--entity <id>', 'the entity the calls act for (DISPATCH_ENTITY)', process.env.DISPATCH_ENTITY ?? 'demo')
    .action(async (connection: Connection) => {
      if (!connection.key) {
        process.stderr.write('dispatch mcp: set DISPATCH_API_KEY (or --key) to the API key whose tools to serve.\n');
        process.exitCode = 2;
        return;
      }
      const badKey = keyProblem(connection.key);
      if (badKey) {
        process.stderr.write(`dispatch mcp: ${badKey}\n`);
        process.exitCode = 2;
        return;
      }
      const { serveOverStdio } = await import('./mcp-proxy.js');
      await serveOverStdio({ ...connection, key: connection.key });
    });
}
