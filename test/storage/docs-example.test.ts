/**
 * The storage walkthrough (docs/faces/storage.md) runs as printed (only the server's address differs) against a
 * real server: inline put and get, an upload through a signed URL with curl -T of a file it writes in a
 * temporary directory, a download link read with curl, the list under a prefix, and a delete.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runPageExample } from '../helpers/doc-examples.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

it('runs the storage walkthrough as printed', async () => {
  const [put, get, uploaded, downloaded, listed, deleted] = await runPageExample('docs/faces/storage.md', server);
  expect(put.data).toMatchObject({ key: 'notes/hello.txt', size: 11, contentType: 'text/plain', sha256: 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9', etag: '"5eb63bbbe01eeed093cb22bb8f5acdc3"' });
  expect(get.data).toMatchObject({ object: { key: 'notes/hello.txt' }, content: 'aGVsbG8gd29ybGQ=' });
  expect(uploaded).toMatchObject({ key: 'reports/q3.json', size: 31, contentType: 'application/json' });
  expect(downloaded).toEqual({ quarter: 'Q3', revenue: 1250 });
  expect(listed.data.items.map((o: { key: string }) => o.key)).toEqual(['reports/q3.json']);
  expect(deleted.data).toEqual({ key: 'reports/q3.json', deleted: true });
});
