/**
 * The command that packs the client package directory. npm 11 reads a bare `dist/client` as a GitHub
 * shorthand (owner/repository) and runs `git ls-remote` on it; a relative directory with its leading `./` is
 * always read as a folder. The client's README, `dispatch client build`'s hint and the package test all take
 * the command from here, so what is documented is what is run.
 */
import { isAbsolute } from 'node:path';

/** Where `dispatch client build` writes the package by default, relative to the checkout. */
export const CLIENT_PACKAGE_DIR = 'dist/client';

/** `npm pack` of a package directory, shown relative to the working directory or absolute. */
export function packCommand(dir: string): string {
  const local = isAbsolute(dir) || dir === '.' || dir === '..' || dir.startsWith('./') || dir.startsWith('../');
  return `npm pack ${local ? dir : `./${dir}`}`;
}

/** The documented command: `npm pack ./dist/client`. */
export const CLIENT_PACK_COMMAND = packCommand(CLIENT_PACKAGE_DIR);
