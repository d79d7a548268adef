/**
 * What the commands that are clients of a running server share (`usage`, `listen`, `trigger`): the options that
 * name the server, the key and the entity (`--url`, `--key`, `--entity`, or DISPATCH_URL, DISPATCH_API_KEY,
 * DISPATCH_ENTITY), and the generated client made from them, whose failures are said in one line.
 */
import type { Command } from 'commander';
import { keyProblem } from './api-key.js';
import { ENTITY_PATTERN } from '../server/stages/entity.js';
import type { DispatchClient } from '../../generated/client/index.js';

export interface Connection {
  url: string;
  key?: string;
  entity: string;
}

/** Adds the connection options to `command`; `keyUse` says what the key is for (its scopes). */
export function connectionOptions(command: Command, keyUse: string): Command {
  return command
    .option('--url <url>', 'the server (DISPATCH_URL)', process.env.DISPATCH_URL ?? 'http://127.0.0.1:8787')
    .option('--key <key>', `${keyUse} (DISPATCH_API_KEY)`, process.env.DISPATCH_API_KEY)
    .option('--entity <id>', 'the entity the calls act for (DISPATCH_ENTITY)', process.env.DISPATCH_ENTITY ?? 'demo');
}

/**
 * Makes the generated client for one command; API errors are printed as the server phrased them, and a server
 * that cannot be reached with where its address comes from (exit 1). A missing or unusable key is a usage error.
 */
export async function withClient(c: Connection, work: (client: DispatchClient, key: string) => Promise<void>): Promise<void> {
  if (!c.key) return usageError('An API key is needed: --key or DISPATCH_API_KEY.');
  const badKey = keyProblem(c.key);
  if (badKey) return usageError(badKey);
  if (!ENTITY_PATTERN.test(c.entity)) return usageError(`The entity "${c.entity}" is not an entity id: 1 to 64 of A-Z a-z 0-9 . _ : - (--entity or DISPATCH_ENTITY).`);
  const { DispatchClient, DispatchConnectionError, DispatchError } = await import('../../generated/client/index.js');
  const client = new DispatchClient({ baseUrl: c.url, apiKey: c.key, entityId: c.entity, timeoutMs: 130_000 });
  try {
    await work(client, c.key);
  } catch (error) {
    if (!(error instanceof DispatchError || error instanceof DispatchConnectionError)) throw error;
    if (error instanceof DispatchError) console.error(`${error.status} ${error.code}: ${error.message}`);
    else console.error(error.timedOut ? error.message : `${error.message}: is the server running there? Its address is --url or DISPATCH_URL.`);
    process.exitCode = 1;
  }
}

/** A command used wrongly: one line on stderr, exit 2. */
export function usageError(message: string): void {
  console.error(message);
  process.exitCode = 2;
}
