/**
 * `dispatch`: the command-line program. Exit codes: 0 ok, 1 diagnostics or stale output, 2 usage.
 * A usage error is one line on stderr (commander's message and where to read more), never the whole help.
 */
import { Command, CommanderError } from 'commander';
import { packageVersion } from '../server/config.js';
import { registerCheck } from './check.js';
import { registerClient } from './client.js';
import { registerDiff } from './diff.js';
import { registerGenerate } from './generate.js';
import { registerKeys } from './keys.js';
import { registerListen } from './listen.js';
import { registerMcp } from './mcp.js';
import { registerNew } from './new.js';
import { markRunning } from './running.js';
import { registerServe } from './serve.js';
import { registerTrigger } from './trigger.js';
import { registerUsage } from './usage.js';
import { registerWorker } from './worker.js';

/** The id of the build this program was compiled in (src/cli/build-dist.mjs defines it); not defined under tsx. */
declare const DISPATCH_BUILD: string | undefined;
if (typeof DISPATCH_BUILD === 'string') markRunning(DISPATCH_BUILD);

const program = new Command('dispatch')
  .description('Unified Dispatch: face files in, typed server, client, docs and OpenAPI out; and the server that runs them.')
  .version(packageVersion())
  .exitOverride();
registerGenerate(program);
registerCheck(program);
registerDiff(program);
registerServe(program);
registerKeys(program);
registerUsage(program);
registerMcp(program);
registerListen(program);
registerTrigger(program);
registerWorker(program);
registerNew(program);
registerClient(program);
oneLineErrors(program);

/**
 * Every command refuses arguments it does not take (commander 12 ignores them by default), and a usage error is
 * one line that names the help of the command being parsed. Commander shares one output configuration among all
 * commands, so the command is followed as parsing descends into it.
 */
function oneLineErrors(program: Command): void {
  let parsing = program;
  const path = (command: Command): string => (command.parent ? `${path(command.parent)} ${command.name()}` : command.name());
  const each = (command: Command) => {
    command.allowExcessArguments(false).hook('preSubcommand', (_, sub) => void (parsing = sub));
    command.commands.forEach(each);
  };
  each(program);
  program.configureOutput({
    outputError: (message, write) => write(`${message.trim().replace(/\s*\n\s*/g, ' ')} (see \`${path(parsing)} --help\`)\n`),
  });
}

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (!(error instanceof CommanderError)) throw error;
  process.exitCode = error.exitCode === 0 ? 0 : 2;
}
