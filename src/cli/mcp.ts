/**
 * `dispatch mcp`: the MCP server over stdio, for desktop clients that start their servers as programs
 * (docs/contract.md § Agents). It serves a running server's tools, as a client of that server's `POST /mcp`
 * (DISPATCH_URL, DISPATCH_API_KEY, DISPATCH_ENTITY, or --url, --key, --entity), so that limits, stores and
 * usage records are the server's: each message is passed on, progress notifications included. Nothing is
 * written to stdout but the protocol; what goes wrong is said on stderr.
 */
import type { Command } from 'commander';
import { keyProblem } from './api-key.js';
import { connectionOptions, type Connection } from './connection.js';

export function registerMcp(program: Command): void {
  connectionOptions(
    program.command('mcp').description('Serve a running server\'s tools to an MCP client over stdio (as a client of its POST /mcp).'),
    'the API key whose tools are served',
  )
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
