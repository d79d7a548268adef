/**
 * `dispatch client build [--out dir]`: compiles the generated client into an npm package directory (see
 * src/client-package/build.ts), ready for `npm pack` or `npm publish`.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { CLIENT_PACKAGE_DIR, packCommand } from '../client-package/pack-command.js';
import { shownPath } from '../spec/shown-path.js';

export function registerClient(program: Command): void {
  const client = program.command('client').description('Package the generated client for npm.');
  client
    .command('build')
    .description('Compile generated/client into a package directory: ES modules, CommonJS and declarations.')
    .option('--from <dir>', 'the generated client', 'generated/client')
    .option('--out <dir>', 'the package directory to write (emptied first)', CLIENT_PACKAGE_DIR)
    .action(async (options: { from: string; out: string }) => {
      const { buildClientPackage } = await import('../client-package/build.js');
      try {
        const built = await buildClientPackage(resolve(options.from), resolve(options.out));
        console.log(`Wrote ${shownPath(built.dir)}: ${built.files.join(', ')}.\nPack it with \`${packCommand(shownPath(built.dir))}\`.`);
      } catch (error) {
        console.error((error as Error).message);
        process.exitCode = 1;
      }
    });
}
