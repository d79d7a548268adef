/**
 * `dispatch`: the command-line program. Exit codes: 0 ok, 1 diagnostics or stale output, 2 usage.
 */
import { Command, CommanderError } from 'commander';
import { packageVersion } from '../server/config.js';
import { registerCheck } from './check.js';
import { registerClient } from './client.js';
import { registerDiff } from './diff.js';
import { registerGenerate } from './generate.js';
import { registerKeys } from './keys.js';
import { registerMcp } from './mcp.js';
import { registerNew } from './new.js';
import { markRunning } from './running.js';
import { registerServe } from './serve.js';
import { registerUsage } from './usage.js';
import { registerWorker } from './worker.js';

/** The id of the build this program was compiled in (src/cli/build-dist.mjs defines it); not defined under tsx. */
declare const DISPATCH_BUILD: string | undefined;
if (typeof DISPATCH_BUILD === 'string') markRunning(DISPATCH_BUILD);

const program = new Command('dispatch')
  .description('Unified Dispatch: face files in, typed server, client, docs and OpenAPI out; and the server that runs them.')
  .version(packageVersion())
  .showHelpAfterError()
  .exitOverride();
registerGenerate(program);
registerCheck(program);
registerDiff(program);
registerServe(program);
registerKeys(program);
registerUsage(program);
registerMcp(program);
registerWorker(program);
registerNew(program);
registerClient(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (!(error instanceof CommanderError)) throw error;
  process.exitCode = error.exitCode === 0 ? 0 : 2;
}
