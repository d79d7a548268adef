/**
 * The storage example of the README runs as printed (only the server's address differs), in a directory of
 * its own since it writes a file: inline put and get, an upload through a signed URL with curl -T, a download
 * link read with curl, the list under a prefix, and a delete.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readmeBlock } from '../helpers/readme.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let cwd: string;
beforeAll(async () => {
  server = await startServer();
  cwd = mkdtempSync(join(tmpdir(), 'dispatch-readme-'));
});
afterAll(async () => {
  await server?.close();
  rmSync(cwd, { recursive: true, force: true });
});

it('runs the README storage example as printed', async () => {
  const script = readmeBlock('Storage').replaceAll('http://127.0.0.1:8787', server.url);
  const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script], { cwd, env: { ...process.env, DISPATCH_KEY: server.adminKey } });
  const [put, get, uploaded, downloaded, listed, deleted] = stdout.trim().split('\n').map((line) => JSON.parse(line));
  expect(put.data).toMatchObject({ key: 'notes/hello.txt', size: 11, contentType: 'text/plain', sha256: 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9', etag: '"5eb63bbbe01eeed093cb22bb8f5acdc3"' });
  expect(get.data).toMatchObject({ object: { key: 'notes/hello.txt' }, content: 'aGVsbG8gd29ybGQ=' });
  expect(uploaded).toMatchObject({ key: 'reports/q3.json', size: 31, contentType: 'application/json' });
  expect(downloaded).toEqual({ quarter: 'Q3', revenue: 1250 });
  expect(listed.data.items.map((o: { key: string }) => o.key)).toEqual(['reports/q3.json']);
  expect(deleted.data).toEqual({ key: 'reports/q3.json', deleted: true });
});
