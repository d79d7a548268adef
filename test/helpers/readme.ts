/**
 * Runs a README example as printed: the first shell block under a `### heading`, with bash (errors fatal),
 * against a test server (only its address differs from the README's), with `DISPATCH_KEY` set to the
 * server's admin key. Examples print one JSON answer per line; assignments print nothing.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import type { TestServer } from './server.js';

/** The first block of `language` after `### <heading>` in the README. */
export function readmeBlock(heading: string, language = 'sh'): string {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const at = readme.indexOf(`\n### ${heading}\n`);
  if (at < 0) throw new Error(`The README has no "### ${heading}" section.`);
  const section = readme.slice(at);
  const fence = '```' + language + '\n';
  const start = section.indexOf(fence) + fence.length;
  return section.slice(start, section.indexOf('\n```', start));
}

/** The example's output, each printed line parsed as JSON. */
export async function runReadmeExample(heading: string, server: TestServer): Promise<any[]> {
  const script = readmeBlock(heading).replaceAll('http://127.0.0.1:8787', server.url);
  const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script], { env: { ...process.env, DISPATCH_KEY: server.adminKey } });
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
}
