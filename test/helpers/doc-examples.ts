/**
 * Runs a documented shell block as printed, with bash (errors fatal, unset variables refused), against a test
 * server: only the address differs from the page's (`http://127.0.0.1:8787`, the address `npm start` listens
 * on). A face's walkthrough runs alone here, with `DISPATCH_API_KEY` set to the server's admin key as the quick
 * start sets it; its calls print one JSON answer per line, and assignments print nothing.
 */
import { pageBlock } from './doc-pages.js';
import { runProgram, type ProgramResult } from './process.js';
import type { TestServer } from './server.js';

/** The address the documentation calls the server at. */
export const DOCUMENTED_URL = 'http://127.0.0.1:8787';

/**
 * Runs `script` with bash against the server at `url`, its standard input empty (not a socket, which Debian's
 * bash takes for a remote login and answers by reading the system's bashrc).
 */
export function runShell(script: string, url: string, options: { env: NodeJS.ProcessEnv; cwd?: string }): Promise<ProgramResult> {
  return runProgram('bash', ['-euo', 'pipefail', '-c', script.replaceAll(DOCUMENTED_URL, url)], options);
}

/** The output of the first shell block of `page` (under `heading`, if given), each printed line parsed as JSON. */
export async function runPageExample(page: string, server: TestServer, options: { heading?: string } = {}): Promise<any[]> {
  const { status, stdout, stderr } = await runShell(pageBlock(page, options.heading), server.url, { env: { ...process.env, DISPATCH_API_KEY: server.adminKey } });
  if (status !== 0) throw new Error(`The example of ${page} exited ${status}:\n${stderr}`);
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
}
