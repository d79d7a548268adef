/**
 * A download link serves the content it was made for, or nothing, on every backend: once its key is deleted,
 * or holds other content (of another type too), this server's links answer 404 `resource_not_found` in the
 * error envelope, and S3's serve the old content until it is collected, then S3's own 404; never the new
 * content. A link to content that did not change keeps working, also when the same bytes are written again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BlobStore } from '../../src/faces/storage/blob-store.js';
import { collectReleasedBlobs } from '../../src/faces/storage/objects.js';
import { STORAGE_BACKENDS } from '../helpers/storage-backends.js';
import { startServer, type TestServer } from '../helpers/server.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(STORAGE_BACKENDS)('download links on $name', (backend) => {
  let server: TestServer;
  let blobs: BlobStore;
  let closeBackend: () => Promise<void>;

  beforeAll(async () => {
    const started = await backend.start();
    blobs = started.blobs;
    closeBackend = started.close;
    server = await startServer({ postgres: backend.postgres, storage: started.settings });
  });
  afterAll(async () => {
    await server?.close();
    await closeBackend?.();
  });

  const call = (action: string, payload: unknown) => server.post({ face: 'storage', action, payload });
  const put = async (key: string, text: string, contentType = 'text/plain') => {
    expect((await call('put', { key, content: Buffer.from(text).toString('base64'), contentType })).status).toBe(200);
  };
  const link = async (key: string) => {
    const made = await call('createDownloadUrl', { key });
    expect(made.status).toBe(200);
    return made.body.data.url as string;
  };
  const download = async (url: string) => {
    const response = await fetch(url);
    return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
  };
  /** This server's refusal of a link whose content is gone. */
  const gone = (answer: { status: number; type: string | null; text: string }) => {
    expect(answer.status).toBe(404);
    expect(answer.type).toMatch(/^application\/json/);
    expect(JSON.parse(answer.text).error).toMatchObject({ type: 'not_found_error', code: 'resource_not_found' });
  };

  it('serves the content a link was made for, and nothing once the key is deleted or holds other content', async () => {
    await put('doc.txt', 'the first text');
    const first = await link('doc.txt');
    expect(await download(first)).toMatchObject({ status: 200, text: 'the first text' });

    expect((await call('delete', { key: 'doc.txt' })).status).toBe(200);
    const afterDelete = await download(first);
    if (backend.servedHere) gone(afterDelete);
    else expect(afterDelete).toMatchObject({ status: 200, text: 'the first text' });

    await put('doc.txt', '<p>the replacement</p>', 'text/html');
    const afterReplace = await download(first);
    expect(afterReplace.text).not.toContain('the replacement');
    if (backend.servedHere) gone(afterReplace);

    // Once the old content is collected, no backend serves anything for the old link.
    await sleep(5);
    await collectReleasedBlobs(server.db, blobs, 0);
    const collected = await download(first);
    expect(collected.status).toBe(404);
    expect(collected.text).not.toContain('the replacement');
  });

  it('keeps serving a link while its key holds the same content, written again or not', async () => {
    await put('same.txt', 'unchanged');
    const url = await link('same.txt');
    expect(await download(url)).toMatchObject({ status: 200, text: 'unchanged' });
    await put('same.txt', 'unchanged');
    expect(await download(url)).toMatchObject({ status: 200, text: 'unchanged' });
  });
});
