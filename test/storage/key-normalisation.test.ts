/**
 * Keys that differ only in Unicode normalisation are one object, on every backend: a key or prefix given in
 * another form (NFD, as macOS composes file names) names the object of its NFC form in every action, in a
 * signed upload and download (one signed for a key in another form too), and in an e-mail attachment; the
 * key answered is the NFC form; a key that NFC would make longer than 1024 characters is refused at its field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUrl } from '../../src/faces/storage/signed-urls.js';
import { STORAGE_BACKENDS } from '../helpers/storage-backends.js';
import { startServer, type TestServer } from '../helpers/server.js';

const NFC = 'r\u00e9sum\u00e9s/caf\u00e9.txt';
const NFD = NFC.normalize('NFD');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const base64 = (text: string) => Buffer.from(text).toString('base64');

describe.each(STORAGE_BACKENDS)('storage keys in Unicode NFC on $name', (backend) => {
  let server: TestServer;
  let closeBackend: () => Promise<void>;

  beforeAll(async () => {
    const started = await backend.start();
    closeBackend = started.close;
    server = await startServer({ postgres: backend.postgres, storage: started.settings });
  });
  afterAll(async () => {
    await server?.close();
    await closeBackend?.();
  });

  const call = (action: string, payload: unknown, face = 'storage') => server.post({ face, action, payload });
  const content = async (key: string) => Buffer.from((await call('get', { key })).body.data.content, 'base64').toString();
  const keysUnder = async (prefix: string) => (await call('list', { prefix })).body.data.items.map((o: { key: string }) => o.key);

  it('takes a key in another form as the object of its NFC form, in every action', async () => {
    expect(NFD).not.toBe(NFC);
    const put = await call('put', { key: NFD, content: base64('first') });
    expect([put.status, put.body.data.key]).toEqual([200, NFC]);
    expect(await content(NFC)).toBe('first');

    // Writing the other form replaces the one object.
    expect((await call('put', { key: NFC, content: base64('second') })).status).toBe(200);
    expect(await content(NFD)).toBe('second');
    expect(await keysUnder('r\u00e9sum\u00e9s/'.normalize('NFD'))).toEqual([NFC]);
    expect(await keysUnder('r\u00e9sum\u00e9s/')).toEqual([NFC]);
    const page = await call('list', { prefix: 'r', cursor: NFD });
    expect(page.body.data.items).toEqual([]);

    const link = await call('createDownloadUrl', { key: NFD });
    expect(link.body.data.key).toBe(NFC);
    const downloaded = await fetch(link.body.data.url);
    expect([downloaded.status, await downloaded.text()]).toEqual([200, 'second']);
    if (backend.servedHere) {
      // A URL signed for the key as a client wrote it, as URLs made before keys were normalised are.
      const object = (await call('get', { key: NFC, includeContent: false })).body.data.object;
      const older = signUrl(server.url, 'GET', { mode: 'test', entity: 'acme', key: NFD, sha256: object.sha256 }, new Date(Date.now() + 60_000));
      const served = await fetch(older);
      expect([served.status, await served.text()]).toEqual([200, 'second']);
    }

    const mail = await call('send', { from: 'hello@acme.test', to: ['ada@example.com'], subject: 'CV', text: 'attached', attachments: [{ key: NFD }] }, 'email');
    expect(mail.status).toBe(200);
    expect(mail.body.data.attachments).toMatchObject([{ key: NFC, filename: 'caf\u00e9.txt' }]);

    const deleted = await call('delete', { key: NFD });
    expect(deleted.body.data).toEqual({ key: NFC, deleted: true });
    expect((await call('get', { key: NFC })).status).toBe(404);
  });

  it('stores a signed upload made for a key in another form under its NFC form', async () => {
    const bytes = Buffer.from('uploaded in NFD');
    const signed = await call('createUploadUrl', { key: NFD, size: bytes.length });
    expect([signed.status, signed.body.data.key]).toEqual([200, NFC]);
    const sent = await fetch(signed.body.data.url, { method: 'PUT', headers: signed.body.data.headers, body: new Uint8Array(bytes) });
    expect(sent.status).toBe(200);
    // An upload to S3 becomes an object once the server's worker sees it land.
    for (let tries = 0; tries < 100 && (await call('get', { key: NFC })).status !== 200; tries++) await sleep(50);
    expect(await content(NFD)).toBe('uploaded in NFD');
    expect(await keysUnder('r')).toEqual([NFC]);
  });

  it('refuses a key that NFC makes longer than 1024 characters', async () => {
    // U+0344 is one UTF-16 unit, two in NFC.
    const refused = await call('put', { key: '\u0344'.repeat(600), content: base64('x') });
    expect([refused.status, refused.body.error?.code, refused.body.error?.param]).toEqual([400, 'payload_invalid', '/payload/key']);
  });
});
