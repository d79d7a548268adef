/**
 * A path as diagnostics and messages show it: relative to the working directory, where the person who ran
 * the command is, so that `file:line:col` opens in their editor and terminal.
 */
import { relative } from 'node:path';

export const shownPath = (path: string) => relative(process.cwd(), path) || '.';
