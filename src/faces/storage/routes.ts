/**
 * The routes the files store's signed URLs point at, served by the storage module (not with S3, whose
 * signed URLs are its own): `PUT /storage/signed?upload=…` streams one upload to disk (the JSON body limit
 * does not apply; the size signed for does, while the bytes arrive) and
 * `GET /storage/signed?mode=…&entity=…&key=…&sha256=…` streams one object back, as long as it still holds
 * the content the URL was made for. Both check the URL's signature and expiry first (403 signed_url_invalid);
 * every refusal leaves in the error envelope. Browser pages on the origins of CORS_ORIGINS may call them
 * directly, as they would an S3 bucket whose CORS rules name them.
 */
import { createReadStream } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CrossOriginRoutes } from '../../core/face-module.js';
import type { Db, Mode } from '../../store/schema.js';
import { getObject, getUpload } from './store.js';
import { TooLargeError } from './digest.js';
import type { FileBlobStore } from './file-blobs.js';
import { contentDisposition } from './content-disposition.js';
import type { StorageService } from './service.js';
import { SIGNED_PATH, verifyUrl } from './signed-urls.js';
import { completeUpload } from './uploads.js';
import { toObject } from './wire.js';
import { ApiError } from '../../core/errors.js';

/** What pages on allowed origins may do with the signed URLs. */
export const SIGNED_URLS_CROSS_ORIGIN: CrossOriginRoutes = {
  routes: [SIGNED_PATH],
  methods: 'GET, PUT',
  allowHeaders: 'Content-Type, If-None-Match',
  exposeHeaders: 'ETag, Content-Disposition, Request-Id',
};

/** Content types a browser would run as a page: served as downloads only, so stored content never runs on the API's origin. */
const ACTIVE_CONTENT = /^(text\/html|application\/xhtml\+xml|image\/svg\+xml|text\/xml|application\/xml)\b/i;

/** The address the server listens on, as a URL (an unspecified address is reached on loopback). */
export function listeningUrl(app: FastifyInstance): string {
  const address = app.server.address() as AddressInfo | null;
  if (!address) throw new Error('The server is not listening.');
  const host = address.address === '0.0.0.0' || address.address === '::' ? '127.0.0.1' : address.address;
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
}

/** Serves the files store's signed URLs, in a scope of their own (its own body parsing). */
export async function signedRoutes(app: FastifyInstance, db: Db, service: StorageService, files: FileBlobStore): Promise<void> {
  // In this scope only: any body, left unread for the upload route to stream (no JSON parse, no body limit).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null));

  app.put(SIGNED_PATH, async (request: FastifyRequest, reply: FastifyReply) => {
    const params = verifyUrl('PUT', request.query as Record<string, string>);
    const upload = params.upload === undefined ? undefined : await getUpload(db, params.upload);
    if (!upload) throw new ApiError('signed_url_invalid', 'This upload URL was used already, or is not an upload URL.');
    const size = Number(upload.size);
    const declared = request.headers['content-length'];
    if (declared !== undefined && Number(declared) > size) throw tooLarge(size);
    let staged;
    try {
      staged = await files.stageStream(request.raw, size);
    } catch (error) {
      if (error instanceof TooLargeError) throw tooLarge(size);
      throw error;
    }
    try {
      const row = await completeUpload(db, service, upload.id, staged);
      return reply.header('ETag', `"${row.md5}"`).send(toObject(row));
    } finally {
      await files.discard(staged);
    }
  });

  app.get(SIGNED_PATH, async (request: FastifyRequest, reply: FastifyReply) => {
    const params = verifyUrl(request.method, request.query as Record<string, string>);
    const mode = params.mode as Mode | undefined;
    if ((mode !== 'test' && mode !== 'live') || params.entity === undefined || params.key === undefined || params.sha256 === undefined) {
      throw new ApiError('signed_url_invalid', 'This is not a download URL.');
    }
    // Keys are kept in NFC; a URL signed before they were names the key as it was stored then.
    const row = await getObject(db, { mode, entityId: params.entity }, params.key.normalize('NFC'));
    // The URL serves the content it was made for: not what was put under its key since.
    if (!row || row.sha256 !== params.sha256) throw new ApiError('resource_not_found', 'The object of this URL was deleted, or holds other content now.');
    const etag = `"${row.md5}"`;
    const filename = params.filename ?? (ACTIVE_CONTENT.test(row.content_type) ? (row.key.split('/').at(-1) ?? 'download') : undefined);
    reply.headers({
      ETag: etag,
      'Content-Type': row.content_type,
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'; sandbox",
      'Cache-Control': 'private, no-cache',
      ...(filename ? { 'Content-Disposition': contentDisposition(filename) } : {}),
    });
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    reply.header('Content-Length', String(row.size));
    return reply.send(createReadStream(files.path(row.sha256)));
  });
}

/** Over the size signed for: the rest of the body is not read, so the connection closes after the answer. */
function tooLarge(size: number): ApiError {
  return new ApiError('payload_too_large', `The upload is larger than the ${size} bytes signed for.`, { details: { limit: size }, headers: { Connection: 'close' } });
}
